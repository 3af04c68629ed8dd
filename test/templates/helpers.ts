import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {
  createTemplateCatalog,
  type TemplateCatalog,
  type TemplateCatalogOptions,
  type TemplateChange,
} from '../../src/templates/index.js'

/** A fresh folder under the OS temp dir, removed by `cleanup`. */
export async function tempDir(prefix = 'sendbox-templates-'): Promise<string> {
  // realpath: on some systems the temp dir is itself a symlink (macOS /var → /private/var).
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), prefix)))
}

/** Write files (relative path → content) under `root`, creating folders. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name)
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, content)
  }
}

export interface Fixture {
  root: string
  templatesDir: string
  fixturesDir: string
  catalog: TemplateCatalog
  warnings: string[]
  close(): Promise<void>
}

/** A catalog over temp folders holding `templates` and `fixtures` files. */
export async function makeCatalog(
  templates: Record<string, string>,
  fixtures: Record<string, string> = {},
  options: Partial<TemplateCatalogOptions> = {},
): Promise<Fixture> {
  const root = await tempDir()
  const templatesDir = path.join(root, 'templates')
  const fixturesDir = path.join(root, 'fixtures')
  await fs.mkdir(templatesDir, { recursive: true })
  await fs.mkdir(fixturesDir, { recursive: true })
  await writeFiles(templatesDir, templates)
  await writeFiles(fixturesDir, fixtures)
  const warnings: string[] = []
  const catalog = await createTemplateCatalog({
    templatesDir,
    fixturesDir,
    watch: false,
    warn: (m) => warnings.push(m),
    ...options,
  })
  return {
    root,
    templatesDir,
    fixturesDir,
    catalog,
    warnings,
    async close() {
      await catalog.close()
      await fs.rm(root, { recursive: true, force: true })
    },
  }
}

/**
 * Resolves with the first change matching `predicate`; rejects after `timeoutMs`. Subscribe
 * before touching the disk, then await.
 */
export function nextChange(
  catalog: TemplateCatalog,
  predicate: (change: TemplateChange) => boolean,
  timeoutMs = 5000,
): Promise<TemplateChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off()
      reject(new Error(`no matching template change within ${timeoutMs} ms`))
    }, timeoutMs)
    const off = catalog.onChange((change) => {
      if (!predicate(change)) return
      clearTimeout(timer)
      off()
      resolve(change)
    })
  })
}

/** The template of a slug, or a failed assertion. */
export function template(catalog: TemplateCatalog, slug: string) {
  const found = catalog.lookup(slug)
  if (!found.ok) throw new Error(`template ${slug} is not available: ${JSON.stringify(found)}`)
  return found.template
}

/** What a valid template's `render` gives, by slug (a lookup that fails throws). */
export function renderSlug(
  catalog: TemplateCatalog,
  slug: string,
  variables: Record<string, unknown> = {},
) {
  const found = catalog.lookup(slug)
  if (!found.ok) throw new Error(`template ${slug} is not available: ${JSON.stringify(found)}`)
  return found.render(variables)
}

/** Rendered HTML of a slug, or a failed assertion. */
export function html(
  catalog: TemplateCatalog,
  slug: string,
  variables: Record<string, unknown> = {},
): string {
  const result = renderSlug(catalog, slug, variables)
  if (!result.ok) throw new Error(`render of ${slug} failed: ${JSON.stringify(result.error)}`)
  return result.html
}
