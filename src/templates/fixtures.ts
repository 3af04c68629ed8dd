/**
 * Sample variables for previews and `sendbox check`: `<fixtures>/<slug>.json` is the case
 * `default`, `<fixtures>/<slug>/<case>.json` are named cases. A broken fixture is reported on
 * its case (and through `warn`), never thrown: one bad file must not stop the server.
 */
import fs from 'node:fs'
import path from 'node:path'
import { jsonErrorOffset, lineColumn } from '../lib/json.js'
import { shownPath } from '../lib/paths.js'
import { isValidSlug } from './slug.js'
import type { FixtureCase } from './types.js'

type Warn = (message: string) => void

/** Every fixture in the folder, by slug. A missing folder has none. */
export async function loadAllFixtures(
  dir: string,
  warn: Warn,
): Promise<Map<string, FixtureCase[]>> {
  const slugs = new Set<string>()
  for (const entry of readDir(dir)) {
    if (entry.name.startsWith('.')) continue
    if (entry.isFile() && entry.name.endsWith('.json'))
      slugs.add(entry.name.slice(0, -'.json'.length))
    else if (entry.isDirectory()) slugs.add(entry.name)
  }
  const all = new Map<string, FixtureCase[]>()
  await Promise.all(
    [...slugs].filter(isValidSlug).map(async (slug) => {
      const cases = await loadFixtureCases(dir, slug, warn)
      if (cases.length > 0) all.set(slug, cases)
    }),
  )
  return all
}

/** The cases of one slug, `default` first, then by name. */
export async function loadFixtureCases(
  dir: string,
  slug: string,
  warn: Warn,
): Promise<FixtureCase[]> {
  const cases = new Map<string, FixtureCase>()
  const nested = path.join(dir, slug)
  for (const entry of readDir(nested)) {
    if (!entry.isFile() || !entry.name.endsWith('.json') || entry.name.startsWith('.')) continue
    const name = entry.name.slice(0, -'.json'.length)
    if (!isValidSlug(name)) continue
    const fixture = await readFixture(name, path.join(nested, entry.name), warn)
    if (fixture) cases.set(name, fixture)
  }
  // `<slug>.json` is the default case; it wins over a `<slug>/default.json`.
  const single = await readFixture('default', path.join(dir, `${slug}.json`), warn)
  if (single) {
    if (cases.has('default')) {
      warn(
        `Fixtures ${slug}.json and ${slug}/default.json are both the "default" case of "${slug}"; using ${slug}.json.`,
      )
    }
    cases.set('default', single)
  }
  return [...cases.values()].sort((a, b) =>
    a.name === b.name
      ? 0
      : a.name === 'default'
        ? -1
        : b.name === 'default'
          ? 1
          : a.name < b.name
            ? -1
            : 1,
  )
}

/** The slug a changed path under the fixtures folder belongs to, or null. */
export function fixtureSlugOf(relative: string): string | null {
  const parts = relative.split(/[\\/]/)
  const first = parts[0] ?? ''
  if (parts.length === 1) {
    const slug = first.endsWith('.json') ? first.slice(0, -'.json'.length) : first
    return isValidSlug(slug) ? slug : null
  }
  return parts.length === 2 && isValidSlug(first) ? first : null
}

async function readFixture(name: string, file: string, warn: Warn): Promise<FixtureCase | null> {
  let text: string
  try {
    // Only a file is read: a named pipe (or a device) would hold the read, and the start, until
    // something wrote to it. Read synchronously: a start reads every fixture before its port
    // opens, and 300 of them took ~70 ms of CPU more through the thread pool (four calls each).
    if (!fs.statSync(file).isFile()) return null
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    if (isMissing(err)) return null
    const error = `Cannot read the fixture: ${(err as Error).message}`
    warn(`${shownPath(file)}:1:1  ${error}`)
    return { name, file, error }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    // Where, as `sendbox check` prints it (file:line:column); V8's message quotes the whole text
    // for some mistakes, which the position says better.
    const { line, column } = lineColumn(text, jsonErrorOffset(text))
    const reason = (err as Error).message.replace(/, ".*" is not valid JSON$/s, '')
    const error = `Invalid JSON at line ${line} column ${column}: ${reason}.`.replace(/\.\.$/, '.')
    warn(`${shownPath(file)}:${line}:${column}  ${error}`)
    return { name, file, error }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const error = 'A fixture must be a JSON object of template variables.'
    warn(`${shownPath(file)}:1:1  ${error}`)
    return { name, file, error }
  }
  return { name, file, variables: value as Record<string, unknown> }
}

function readDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR'
}
