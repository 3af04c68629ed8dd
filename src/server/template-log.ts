import { join } from 'node:path'
import type { Logger } from '../core/logger.js'
import { shownPath } from '../lib/paths.js'
import type { TemplateCatalog, TemplateChange } from '../templates/index.js'

/**
 * The console line for a template change the catalog took in: one per template reloaded,
 * removed or no longer parsing, in the form `sendbox check` prints a problem (`file:line:col`).
 *
 * @example
 * catalog.onChange((change) => logTemplateChange(catalog, change, logger))
 * // ℹ Template welcome reloaded (templates/welcome.liquid changed)
 * // ⚠ Template welcome does not parse: templates/welcome.liquid:7:3  Tag {% if name %} is not closed …
 * // ⚠ Template welcome reloaded without its fixture case "default": fixtures/welcome.json does not parse
 */
export function logTemplateChange(
  catalog: Pick<TemplateCatalog, 'lookup' | 'fixtures' | 'templatesDir' | 'fixturesDir'>,
  change: TemplateChange,
  logger: Pick<Logger, 'info' | 'warn'>,
): void {
  const folder = change.source === 'fixture' ? catalog.fixturesDir : catalog.templatesDir
  const file = shownPath(join(folder, change.path))
  const own = change.source === 'template'
  if (own && change.change === 'removed')
    return logger.info(`Template ${change.slug} removed (${file})`)
  const found = catalog.lookup(change.slug)
  if (!found.ok && found.reason === 'invalid') {
    const { file: at, line, column, message } = found.error
    const where = `${shownPath(join(catalog.templatesDir, at))}:${line}:${column}`
    logger.warn(`Template ${change.slug} does not parse: ${where}  ${message}`)
  } else if (found.ok) {
    // A fixture that no longer parses was warned of where it is (file:line:column); the
    // template is reloaded without that case, which "reloaded" alone would hide.
    const broken = catalog
      .fixtures(change.slug)
      .find((f) => f.error !== undefined && f.file === join(folder, change.path))
    if (broken)
      return logger.warn(
        `Template ${change.slug} reloaded without its fixture case "${broken.name}": ${file} does not parse`,
      )
    const verb = own && change.change === 'added' ? 'added' : 'reloaded'
    const why = own ? file : `${change.source} ${file} ${change.change}`
    logger.info(`Template ${change.slug} ${verb} (${why})`)
  }
}
