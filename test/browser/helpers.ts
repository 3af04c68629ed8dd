import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'

/** Debian's Chromium (what .ci/run installs); never a browser downloaded by a test tool. */
export const CHROMIUM = process.env.SENDBOX_BROWSER ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
if (!hasChromium) console.warn(`Chromium not found at ${CHROMIUM}: skipping the browser tests (.ci/run installs it with apt-get)`)

export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'screenshots')

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
}

export interface OpenPage {
  page: Page
  /** Console errors and uncaught exceptions, in the page and its frames. */
  errors: string[]
  close(): Promise<void>
}

/** A fresh context (own storage, own viewport) and page that records every console error. */
export async function openPage(browser: Browser, url: string, options: BrowserContextOptions = {}): Promise<OpenPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options })
  const page = await context.newPage()
  // Fail fast: nothing in this page should take seconds.
  page.setDefaultTimeout(10_000)
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`))
  await page.goto(url)
  // The event stream is open and the first list is in: anything sent from now on arrives live.
  await page.locator('#status[data-state="live"]').waitFor()
  return { page, errors, close: () => context.close() }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

/** The repository's example templates and fixtures, as `{ 'path': 'content' }`. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files[relative(dir, path)] = await readFile(path, 'utf8')
  }
  return files
}
