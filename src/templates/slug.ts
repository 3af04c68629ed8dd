/**
 * Slugs and the file names that carry them. A slug ends up in URLs and in file paths, so the
 * rule is deliberately narrow: it can never name a path outside the templates folder.
 */

/**
 * Letters, digits, `-`, `_`, `.`; 1 to 128 characters; not `.` or `..`. Written without
 * lookarounds so that the same source works as a JSON Schema `pattern` in JavaScript and in
 * Python (where fuzzers generate strings from it): a first character that is not a dot, or one
 * dot and a non-dot, or two dots and at least one more character.
 */
export const SLUG_PATTERN =
  /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}|\.[A-Za-z0-9_-][A-Za-z0-9._-]{0,126}|\.\.[A-Za-z0-9._-]{1,126})$/

/** How a slug is described to a person who sent something else. */
export const SLUG_HINT =
  'a slug: letters, digits, "-", "_" and ".", 1 to 128 characters, not "." or ".."'

/** Letters, digits, `-`, `_`, `.`; 1 to 128 characters; not `.` or `..`. */
export function isValidSlug(slug: string): boolean {
  return typeof slug === 'string' && SLUG_PATTERN.test(slug)
}

/**
 * Template extensions, in order of precedence: when both `x.liquid` and `x.html` exist, the
 * `.liquid` file is the template `x` (Liquid is the primary format; `.html` is a convenience for
 * editors that only highlight HTML). Partials are looked up in the same order.
 */
export const TEMPLATE_EXTENSIONS = ['.liquid', '.html'] as const

/** `true` for names that end in one of TEMPLATE_EXTENSIONS. */
export function hasTemplateExtension(name: string): boolean {
  return TEMPLATE_EXTENSIONS.some((ext) => name.endsWith(ext))
}

/**
 * The slug of a file directly in the templates folder, or null when that file is not a template:
 * wrong extension, a partial (`_` prefix), a hidden or editor file (`.` prefix), or a name that is
 * not a valid slug.
 */
export function slugOfFileName(fileName: string): string | null {
  if (fileName.startsWith('_') || fileName.startsWith('.')) return null
  const ext = TEMPLATE_EXTENSIONS.find((e) => fileName.endsWith(e))
  if (!ext) return null
  const slug = fileName.slice(0, -ext.length)
  return isValidSlug(slug) ? slug : null
}

/**
 * The extension of a template's hand-written plain-text version: `welcome.txt.liquid` beside
 * `welcome.liquid` (or `.html`). Without that template beside it, such a file is a template of
 * its own (slug `welcome.txt`), as the slug rule says; the catalog decides, seeing both.
 */
export const TEXT_EXTENSION = '.txt.liquid'

/**
 * The slug whose text version a file directly in the templates folder is, or null.
 *
 * @example
 * textSlugOfFileName('welcome.txt.liquid') // 'welcome'
 * textSlugOfFileName('welcome.liquid')     // null
 */
export function textSlugOfFileName(fileName: string): string | null {
  if (fileName.startsWith('_') || fileName.startsWith('.') || !fileName.endsWith(TEXT_EXTENSION))
    return null
  const slug = fileName.slice(0, -TEXT_EXTENSION.length)
  return isValidSlug(slug) ? slug : null
}

/** Rank of an extension in TEMPLATE_EXTENSIONS (lower wins). */
export function extensionRank(fileName: string): number {
  const i = TEMPLATE_EXTENSIONS.findIndex((e) => fileName.endsWith(e))
  return i === -1 ? TEMPLATE_EXTENSIONS.length : i
}
