import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { childEnv, ROOT } from './cli.js'

/**
 * The documentation as the tests that run its examples read it: README.md, then every docs/*.md
 * in name order. A file added under docs/ has its examples run with no change to any test.
 */

export interface DocFile {
  /** Relative to the repository, with `/`: `README.md`, `docs/api.md`. */
  file: string
  text: string
}

export interface Block {
  file: string
  lang: string
  body: string
  /** The line of the opening fence, 1-based. */
  line: number
}

/**
 * README.md and docs/*.md, README first. Order matters to the curl examples: they run one after
 * another against one server, and an example may read what an earlier one sent.
 *
 * @example
 * for (const { file, text } of await readDocs()) console.log(file, text.length)
 */
export async function readDocs(): Promise<DocFile[]> {
  const names = (await readdir(join(ROOT, 'docs')).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.md'))
    .sort()
  const files = ['README.md', ...names.map((name) => `docs/${name}`)]
  return Promise.all(
    files.map(async (file) => ({ file, text: await readFile(join(ROOT, file), 'utf8') })),
  )
}

/**
 * The fenced code blocks of a Markdown file whose fences start the line (``` then a language).
 *
 * @example
 * fencedBlocks('```sh\ncurl x\n```', 'README.md') // [{ file: 'README.md', lang: 'sh', body: 'curl x', line: 1 }]
 */
export function fencedBlocks(markdown: string, file: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const start = i
    const body: string[] = []
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!)
    blocks.push({ file, lang: open[1]!, body: body.join('\n'), line: start + 1 })
  }
  return blocks
}

/**
 * Every fenced block, however it is fenced: indented (inside a list item), ``` or ~~~, any
 * info string. What the guard looks through, so that a block the runners' stricter reading
 * misses is still found.
 *
 * @example
 * anyFencedBlocks('- a\n\n  ~~~bash\n  curl x\n  ~~~', 'docs/x.md')[0]!.lang // 'bash'
 */
export function anyFencedBlocks(markdown: string, file: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!)
    if (!open) continue
    const start = i
    const fence = open[1]!
    const body: string[] = []
    for (i++; i < lines.length && !lines[i]!.trim().startsWith(fence); i++) body.push(lines[i]!)
    blocks.push({ file, lang: open[2]!, body: body.join('\n'), line: start + 1 })
  }
  return blocks
}

/**
 * The blocks test/readme-examples.test.ts runs as shell scripts against a real server: `sh`
 * blocks with a line that starts with `curl`, unless the block is a whole script (`#!`), which is
 * a recipe file (test/recipes/ runs those).
 *
 * @example
 * isCurlExample({ file: 'README.md', lang: 'sh', body: 'curl -s http://127.0.0.1:5025/x', line: 1 }) // true
 */
export function isCurlExample(block: Block): boolean {
  return (
    block.lang === 'sh' &&
    /^curl /m.test(block.body) &&
    !block.body.startsWith('#!') &&
    !OWN_RUNNERS.has(block.file)
  )
}

/**
 * Pages whose examples need a server the curl test does not start (HTTPS with its CA), and
 * the test that runs every block of them instead. The curl test leaves them alone; the guard
 * counts them as run, and checks that the runner named here reads the page.
 */
export const OWN_RUNNERS = new Map([
  ['docs/https.md', 'test/https/docs.test.ts'],
  ['docs/team.md', 'test/projects/docs.test.ts'],
])

/** The recipe files under test/recipes/ that the docs show verbatim, and test/recipes/ runs. */
export const RECIPE_FILES = [
  'vitest/vitest.config.ts',
  'vitest/vitest.global-setup.ts',
  'vitest/signup.spec.ts',
  'with-sendbox.sh',
  'assert-with-curl.sh',
  'wait-for-message.test.ts',
  'retry.test.ts',
  'python/sendbox_process.py',
  'bounce-webhook.test.ts',
  'welcome-email.test.ts',
]

/** The recipe files' text, trimmed at the end as a doc block shows it. */
export async function recipeTexts(): Promise<Map<string, string>> {
  const texts = new Map<string, string>()
  for (const file of RECIPE_FILES)
    texts.set(file, (await readFile(join(ROOT, 'test', 'recipes', file), 'utf8')).trimEnd())
  return texts
}

/**
 * The parts of a doc between `<!-- ci:start -->` and `<!-- ci:end -->` (the "In CI" sections,
 * whose recipes are files test/recipes/ runs), joined; '' when it has none.
 *
 * @example
 * ciSection('a <!-- ci:start -->b<!-- ci:end --> c') // '<!-- ci:start -->b'
 */
export function ciSection(markdown: string): string {
  const parts: string[] = []
  let from = 0
  for (;;) {
    const start = markdown.indexOf('<!-- ci:start -->', from)
    const end = markdown.indexOf('<!-- ci:end -->', start)
    if (start === -1 || end === -1) return parts.join('\n')
    parts.push(markdown.slice(start, end))
    from = end
  }
}

/**
 * The docs' JSON next to an answer: strings with "…" stand for any string, `createdAt` and
 * `updatedAt` for any time; everything else must be equal, with the same keys.
 */
export function matchesExample(actual: unknown, example: unknown, path = '$'): string[] {
  if (typeof example === 'string' && example.includes('…'))
    return typeof actual === 'string'
      ? []
      : [`${path}: expected a string, got ${JSON.stringify(actual)}`]
  if (/\.(createdAt|updatedAt)$/.test(path))
    return typeof actual === 'string' && !Number.isNaN(Date.parse(actual))
      ? []
      : [`${path}: expected a time`]
  if (Array.isArray(example)) {
    if (!Array.isArray(actual) || actual.length !== example.length)
      return [`${path}: expected ${JSON.stringify(example)}, got ${JSON.stringify(actual)}`]
    return example.flatMap((item, i) => matchesExample(actual[i], item, `${path}[${i}]`))
  }
  if (example && typeof example === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`]
    const keys = [...new Set([...Object.keys(example), ...Object.keys(actual)])]
    return keys.flatMap((key) => {
      if (!(key in example)) return [`${path}.${key}: in the answer but not in the example`]
      if (!(key in actual)) return [`${path}.${key}: in the example but not in the answer`]
      return matchesExample(
        (actual as Record<string, unknown>)[key],
        (example as Record<string, unknown>)[key],
        `${path}.${key}`,
      )
    })
  }
  return Object.is(actual, example)
    ? []
    : [`${path}: expected ${JSON.stringify(example)}, got ${JSON.stringify(actual)}`]
}

export function bash(
  script: string,
  cwd = ROOT,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { cwd, env: childEnv(), timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        })
      },
    )
  })
}

/**
 * A heading's anchor as GitHub makes it (github-slugger): the rendered text, lower-cased,
 * without punctuation, spaces as hyphens.
 *
 * @example
 * slug('Recipe: Python (and other languages)') // 'recipe-python-and-other-languages'
 */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or an image: its text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/`/g, '')
    .replace(/(\*\*|__|\*|\b_|_\b)/g, '') // emphasis
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub does (-1, -2). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  // Headings are looked for outside fences but with their code spans kept.
  let fence: string | undefined
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (marker?.startsWith(fence)) fence = undefined
      continue
    }
    if (marker) {
      fence = marker
      continue
    }
    const heading = /^ {0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slug(heading)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    out.add(count === 0 ? base : `${base}-${count}`)
  }
  return out
}
