import { accessSync, constants, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { ConfigError } from '../config.js'
import {
  imageFile,
  removeReviewImages,
  VISUAL_VARIANTS,
  type VisualVariant,
  writeInside,
  writeReviewImage,
} from '../templates/snapshot-files.js'
import { shownPath } from '../lib/paths.js'
import type { Problem } from './check-types.js'
import type { SnapshotWrites } from './check-snapshots.js'

/**
 * `sendbox check --visual` (docs/snapshots.md#pixels---visual): each case rendered in Chromium at 375 and 600 px,
 * light and dark, kept as PNG snapshots beside the HTML ones and compared pixel by pixel.
 *
 * - The browser is a system Chromium, driven by playwright-core (an optional peer dependency:
 *   a project that never runs --visual does not install its 14 MB), found at `--browser`,
 *   `SENDBOX_BROWSER`, or as chromium, chromium-browser, google-chrome on the PATH.
 * - Screenshots are made deterministic as far as a page can be: device scale factor 1, every
 *   network request refused (a remote image is a broken image every time, never a slow one),
 *   animations stopped, the caret hidden. Fonts are the machine's: pixel snapshots compare only
 *   on the same browser and OS, as with every pixel-snapshot tool.
 * - Comparison is pixelmatch's: per-pixel colour distance with its default threshold (0.1) and
 *   anti-aliased pixels not counted, so a glyph's edge that moves by a shade is not a change.
 *   More differing pixels than `--visual-threshold` (a share; default 0: any) is `visual_changed`,
 *   with the current screenshot and a diff image written under `.diff/`.
 */

/** Chromium's names on the PATH, in the order they are tried. */
const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']

/** What this machine's network and a reproducible screenshot need (no GPU, no updates, no sync). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--font-render-hinting=none',
  '--hide-scrollbars',
]

/** The page height of a screenshot before it grows to the whole email (full page). */
const VIEWPORT_HEIGHT = 800

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * The Chromium to use: `--browser`, else `SENDBOX_BROWSER`, else the first of chromium,
 * chromium-browser, google-chrome on the PATH. Throws ConfigError (exit 2) naming what it tried.
 *
 * @example findBrowser(undefined, process.env) // '/usr/bin/chromium'
 */
export function findBrowser(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const named = given ?? env.SENDBOX_BROWSER
  if (named !== undefined) {
    const file = path.resolve(named)
    if (isExecutable(file)) return file
    throw new ConfigError(
      given !== undefined ? '--browser' : 'SENDBOX_BROWSER',
      `${file} is not an executable browser; sendbox check --visual needs a Chromium.`,
    )
  }
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean)
  for (const name of BROWSER_NAMES)
    for (const dir of dirs) if (isExecutable(path.join(dir, name))) return path.join(dir, name)
  throw new ConfigError(
    '--visual',
    `no Chromium found: sendbox check --visual needs one (give it with --browser PATH or SENDBOX_BROWSER, or put ${BROWSER_NAMES.join(', ')} on the PATH; on Debian and Ubuntu: apt-get install chromium).`,
  )
}

/** playwright-core, or ConfigError (exit 2) saying how to install it. */
async function loadPlaywright(): Promise<typeof import('playwright-core')> {
  try {
    return await import('playwright-core')
  } catch {
    throw new ConfigError(
      '--visual',
      'sendbox check --visual drives Chromium with playwright-core, which is not installed: npm install --save-dev playwright-core (it downloads no browser).',
    )
  }
}

export interface VisualOptions {
  /** The snapshot folder (absolute). */
  dir: string
  browser: string
  update: boolean
  ci: boolean
  /** Share of the pixels that may differ (0: none). */
  threshold: number
  writes: SnapshotWrites
}

interface Decoded {
  width: number
  height: number
  data: Buffer
}

/**
 * Screenshots every rendered case and compares each with its PNG snapshot.
 *
 * @example
 * const problems = await visualCheck(snapshots.rendered.values(), { dir, browser, update, ci, threshold: 0, writes })
 */
export async function visualCheck(
  cases: Iterable<{ template: string; case: string; html: string }>,
  options: VisualOptions,
): Promise<Problem[]> {
  const { chromium } = await loadPlaywright()
  const { PNG } = await import('pngjs')
  const { default: pixelmatch } = await import('pixelmatch')
  const browser = await chromium.launch({
    executablePath: options.browser,
    headless: true,
    args: CHROMIUM_ARGS,
  })
  const problems: Problem[] = []
  const all = [...cases]
  try {
    for (const variant of VISUAL_VARIANTS) {
      const context = await browser.newContext({
        viewport: { width: variant.width, height: VIEWPORT_HEIGHT },
        deviceScaleFactor: 1,
        colorScheme: variant.scheme,
        javaScriptEnabled: false,
        offline: true,
      })
      const page = await context.newPage()
      await page.route('**/*', (route) => route.abort())
      for (const rendered of all) {
        await page.setContent(rendered.html, { waitUntil: 'load' })
        const png = await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' })
        const problem = await compare(rendered, variant, png, options, {
          read: (buffer) => PNG.sync.read(buffer) as Decoded,
          diff: (a, b) => pixelDiff(a, b, PNG, pixelmatch),
        })
        if (problem) problems.push(problem)
      }
      await context.close()
    }
  } finally {
    await browser.close()
  }
  return problems
}

type PngClass = typeof import('pngjs').PNG
type Pixelmatch = typeof import('pixelmatch').default

/** The differing pixels of two screenshots and the diff image (pages of other heights: the taller one's). */
function pixelDiff(
  a: Decoded,
  b: Decoded,
  PNG: PngClass,
  pixelmatch: Pixelmatch,
): { pixels: number; total: number; image: Buffer } {
  const width = Math.max(a.width, b.width)
  const height = Math.max(a.height, b.height)
  const padded = (img: Decoded) => {
    if (img.width === width && img.height === height) return img.data
    const out = new PNG({ width, height })
    out.data.fill(0)
    PNG.bitblt(img as unknown as InstanceType<PngClass>, out, 0, 0, img.width, img.height, 0, 0)
    return out.data
  }
  const diff = new PNG({ width, height })
  const pixels = pixelmatch(padded(a), padded(b), diff.data, width, height, {
    threshold: 0.1,
    includeAA: false,
  })
  return { pixels, total: width * height, image: PNG.sync.write(diff) }
}

async function compare(
  rendered: { template: string; case: string },
  variant: VisualVariant,
  png: Buffer,
  options: VisualOptions,
  codec: {
    read(buffer: Buffer): Decoded
    diff(a: Decoded, b: Decoded): { pixels: number; total: number; image: Buffer }
  },
): Promise<Problem | null> {
  const { dir, update, ci, writes } = options
  const slug = rendered.template
  const name = rendered.case
  const file = imageFile(dir, slug, name, variant.name, 'snapshot')
  const shown = shownPath(file)
  const stored = await readIfThereBuffer(file)
  const write = async (list: string[]) => {
    await writeInside(dir, [slug], path.basename(file), png)
    await removeReviewImages(dir, slug, name, variant.name)
    list.push(shown)
  }
  if (stored === null) {
    if (update || !ci) {
      await write(writes.written)
      return null
    }
    return {
      file,
      line: 1,
      column: 1,
      code: 'snapshot_missing',
      message: `There is no ${variant.name} screenshot of "${slug}" (case "${name}"): run sendbox check --visual -u on the machine whose screenshots you keep, and commit ${shown}.`,
      severity: 'error',
    }
  }
  const { pixels, total, image } = codec.diff(codec.read(stored), codec.read(png))
  if (pixels <= options.threshold * total) {
    await removeReviewImages(dir, slug, name, variant.name)
    return null
  }
  if (update) {
    await write(writes.updated)
    return null
  }
  const diffFile = await writeReviewImage(dir, slug, name, variant.name, 'diff', image)
  const currentFile = await writeReviewImage(dir, slug, name, variant.name, 'current', png)
  const share = ((pixels / total) * 100).toFixed(2)
  return {
    file,
    line: 1,
    column: 1,
    code: 'visual_changed',
    message: `${pixels} pixels (${share}%) of "${slug}" (case "${name}") at ${variant.width} px, ${variant.scheme}, differ from the screenshot snapshot: the diff is ${shownPath(diffFile)}, the new screenshot ${shownPath(currentFile)}. Review them, then accept with sendbox check --visual -u.`,
    severity: 'error',
  }
}

async function readIfThereBuffer(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file)
  } catch {
    return null
  }
}

/** `--visual-threshold`: a share of the pixels, from 0 to 1. */
export function visualThreshold(value: string | undefined): number {
  if (value === undefined) return 0
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new ConfigError(
      '--visual-threshold',
      `expected a share of the pixels from 0 to 1 (0.001 is 0.1%), got ${JSON.stringify(value)}`,
    )
  return n
}
