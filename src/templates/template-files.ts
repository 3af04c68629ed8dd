/**
 * The template files of a folder, and the order the catalog lists slugs in: what the catalog
 * needs before it compiles anything (./catalog-load.ts, which it loads later, compiles).
 */
import fs from 'node:fs'
import path from 'node:path'
import { extensionRank, slugOfFileName, textSlugOfFileName } from './slug.js'

/**
 * Whether `file` is a file, or a link to one (false when it cannot be stat'ed): what the catalog
 * lists as a template and the engine finds as a partial or layout.
 *
 * @example
 * isFile('/app/templates/welcome.liquid') // true
 */
export function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * Templates directly in the folder, by slug (`.liquid` before `.html`), and their hand-written
 * text versions (`<slug>.txt.liquid`). A missing folder has none.
 *
 * @example
 * const { files, texts } = await listTemplateFiles('/app/templates')
 */
export async function listTemplateFiles(
  dir: string,
): Promise<{ files: Map<string, string>; texts: Map<string, string> }> {
  let dirents: fs.Dirent[]
  try {
    dirents = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return { files: new Map(), texts: new Map() }
  }
  const chosen = new Map<string, string>()
  const textNames = new Map<string, string>()
  for (const dirent of dirents) {
    if (!dirent.isFile() && !dirent.isSymbolicLink()) continue
    const textSlug = textSlugOfFileName(dirent.name)
    if (textSlug !== null) textNames.set(textSlug, dirent.name)
    const slug = slugOfFileName(dirent.name)
    if (slug === null) continue
    const current = chosen.get(slug)
    if (current === undefined || extensionRank(dirent.name) < extensionRank(current))
      chosen.set(slug, dirent.name)
  }
  // `x.txt.liquid` beside a template `x` is its text version, not the template `x.txt`.
  for (const [slug, name] of [...textNames]) {
    if (!chosen.has(slug)) textNames.delete(slug)
    else if (chosen.get(`${slug}.txt`) === name) chosen.delete(`${slug}.txt`)
  }
  // A symlink counts only when it leads to a file (compileFile checks where it leads).
  const onlyFiles = async (names: Map<string, string>) => {
    const out = new Map<string, string>()
    for (const [slug, name] of names) {
      const file = path.join(dir, name)
      if (isFile(file)) out.set(slug, file)
    }
    return out
  }
  return { files: await onlyFiles(chosen), texts: await onlyFiles(textNames) }
}

/**
 * Code-unit order, as the catalog lists slugs.
 *
 * @example
 * ['b', 'a'].sort(compare) // ['a', 'b']
 */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * True when `file` is strictly inside `dir` (both absolute, compared lexically).
 *
 * @example
 * isInside('/app/templates', '/app/templates/partials/button.liquid') // true
 */
export function isInside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)
}

/**
 * Path relative to the templates folder, with `/` separators on every platform.
 *
 * @example
 * relativeFile('/app/templates', '/app/templates/partials/button.liquid') // 'partials/button.liquid'
 */
export function relativeFile(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/')
}
