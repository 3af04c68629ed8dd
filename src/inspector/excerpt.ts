import { readFile } from 'node:fs/promises'
import { isAbsolute, relative, resolve } from 'node:path'
import { shownPath } from '../lib/paths.js'
import type { ExcerptLine } from './types.js'

/** Lines shown on each side of the offending one. */
const AROUND = 2
/** A line longer than this is cut: an excerpt is for reading, not for a minified file. */
const MAX_LINE = 500

/** The lines around `line` (1-based) of a source text. */
export function excerptOf(source: string, line: number, around = AROUND): ExcerptLine[] {
  const lines = source.split(/\r?\n/)
  const first = Math.max(1, line - around)
  const last = Math.min(lines.length, line + around)
  const out: ExcerptLine[] = []
  for (let n = first; n <= last; n++) out.push({ line: n, text: lines[n - 1]!.slice(0, MAX_LINE) })
  return out
}

/**
 * Error details with the lines around each place, and its `path` as `sendbox check` prints it,
 * read from the file under the templates folder
 * (as it is now: the catalog reloads on a change, so this is what the next render sees). A place
 * outside the folder, or a file that cannot be read, keeps its detail as it is.
 */
export async function withExcerpts(templatesDir: string, details: unknown[]): Promise<unknown[]> {
  return Promise.all(
    details.map(async (detail) => {
      const place = detail as { file?: unknown; line?: unknown }
      if (typeof place?.file !== 'string' || typeof place.line !== 'number') return detail
      const file = resolve(templatesDir, place.file)
      const inside = relative(templatesDir, file)
      if (inside.startsWith('..') || isAbsolute(inside)) return detail
      try {
        // `path`: the file as `sendbox check` and the console name it (from the working directory).
        return {
          ...place,
          path: shownPath(file),
          excerpt: excerptOf(await readFile(file, 'utf8'), place.line),
        }
      } catch {
        return detail
      }
    }),
  )
}
