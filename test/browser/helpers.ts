import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { Browser, BrowserContextOptions, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest'
import { tempDir, type TestSandbox } from '../helpers/sandbox.js'

/** Debian's Chromium (what .ci/run installs); never a browser downloaded by a test tool. */
export const CHROMIUM = process.env.SENDBOX_BROWSER ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
if (!hasChromium)
  console.warn(
    `Chromium not found at ${CHROMIUM}: skipping the browser tests (.ci/run installs it with apt-get)`,
  )

export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'screenshots')

/** `args`: extra Chromium switches, e.g. `--host-resolver-rules=MAP evil.test 127.0.0.1`. */
export async function launch(args: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      ...args,
    ],
  })
}

export interface OpenPage {
  page: Page
  /** Console errors and uncaught exceptions, in the page and its frames. */
  errors: string[]
  close(): Promise<void>
}

/** A fresh context (own storage, own viewport) and page that records every console error. */
export async function openPage(
  browser: Browser,
  url: string,
  options: BrowserContextOptions = {},
): Promise<OpenPage> {
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

export interface InboxSuite {
  /** Set once the suite's beforeAll has run. */
  browser: Browser
  sandbox: TestSandbox
  /** The sandbox's fixtures folder, a temporary one. */
  fixturesDir: string
  /** The inbox at this hash, in a fresh context; closed, and checked for console errors, after the test. */
  visit(hash?: string, options?: BrowserContextOptions): Promise<Page>
  /** Any page, closed and checked like the ones visit opens. */
  open(url: string, options?: BrowserContextOptions): Promise<OpenPage>
  /** Console errors the current test expects to cause (they do not fail it). */
  allowErrors(...patterns: RegExp[]): void
}

/**
 * The hooks of an end-to-end suite (call it inside the describe): one browser and one sandbox
 * (`start`, given an empty fixtures folder) for all its tests, an empty inbox before each test,
 * and after each test every page closed and no console error in any of them.
 */
export function inboxSuite(start: (fixturesDir: string) => Promise<TestSandbox>): InboxSuite {
  let pages: OpenPage[] = []
  let allowedErrors: RegExp[] = []
  const suite: InboxSuite = {
    browser: undefined as unknown as Browser,
    sandbox: undefined as unknown as TestSandbox,
    fixturesDir: '',
    async visit(hash = '', options = {}) {
      return (await suite.open(`${suite.sandbox.url}/_sandbox/${hash}`, options)).page
    },
    async open(url: string, options: BrowserContextOptions = {}) {
      const opened = await openPage(suite.browser, url, options)
      pages.push(opened)
      return opened
    },
    allowErrors(...patterns) {
      allowedErrors = patterns
    },
  }

  beforeAll(async () => {
    suite.fixturesDir = await tempDir('sendbox-fixtures-')
    suite.sandbox = await start(suite.fixturesDir)
    suite.browser = await launch()
  }, 60_000)

  afterAll(async () => {
    await suite.browser?.close()
    await suite.sandbox?.close()
    if (suite.fixturesDir) await rm(suite.fixturesDir, { recursive: true, force: true })
  })

  beforeEach(async () => {
    await suite.sandbox.clear()
  })

  afterEach(async () => {
    const errors = pages
      .flatMap((p) => p.errors)
      .filter((e) => !allowedErrors.some((allowed) => allowed.test(e)))
    await Promise.all(pages.map((p) => p.close()))
    pages = []
    allowedErrors = []
    expect(errors, 'console errors in the page').toEqual([])
  })

  return suite
}

/**
 * The variables editor's text: CodeMirror's editable element (in a shadow root, which
 * Playwright's locators pierce), one element per line.
 */
export const editorText = (page: Page): Promise<string> =>
  page.locator('#vars-json').evaluate((el) => (el as HTMLElement).innerText)

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
