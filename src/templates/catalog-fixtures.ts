/** The catalog's fixture cases after files in the fixtures folder changed. */
import path from 'node:path'
import { fixtureSlugOf, loadAllFixtures, loadFixtureCases } from './fixtures.js'
import { compare, relativeFile } from './template-files.js'
import type { FixtureCase, TemplateChange } from './types.js'

/**
 * The fixture cases after `changed` (absolute paths): the folder itself reloads every slug,
 * a file or folder its slug's cases. With the changes to announce.
 *
 * @example
 * const { fixtures, changes } = await reloadFixtures('/app/fixtures', before, ['/app/fixtures/welcome/ada.json'], warn)
 */
export async function reloadFixtures(
  fixturesDir: string,
  before: Map<string, FixtureCase[]>,
  changed: string[],
  warn: (message: string) => void,
): Promise<{ fixtures: Map<string, FixtureCase[]>; changes: TemplateChange[] }> {
  if (changed.includes(fixturesDir)) {
    const fixtures = await loadAllFixtures(fixturesDir, warn)
    const slugs = new Set([...before.keys(), ...fixtures.keys()])
    const changes = [...slugs]
      .sort(compare)
      .map((slug): TemplateChange => ({ slug, change: 'changed', source: 'fixture', path: '.' }))
    return { fixtures, changes }
  }
  const bySlug = new Map<string, string>()
  for (const file of changed) {
    const slug = fixtureSlugOf(path.relative(fixturesDir, file))
    // Report a changed .json file rather than the folder holding it (mkdir + write).
    if (slug && (!bySlug.has(slug) || file.endsWith('.json')))
      bySlug.set(slug, relativeFile(fixturesDir, file))
  }
  const fixtures = new Map(before)
  for (const slug of bySlug.keys()) {
    const cases = await loadFixtureCases(fixturesDir, slug, warn)
    if (cases.length > 0) fixtures.set(slug, cases)
    else fixtures.delete(slug)
  }
  const changes = [...bySlug].map(
    ([slug, file]): TemplateChange => ({ slug, change: 'changed', source: 'fixture', path: file }),
  )
  return { fixtures, changes }
}
