/**
 * The bytes of a snapshot (docs/snapshots.md#the-snapshot-folder): what a render becomes before it is written or compared,
 * so that it is stable and diffs well line by line.
 *
 * HTML is re-indented, not re-printed. Every run of whitespace between or around text and tags
 * that holds a line break becomes one line break and two spaces per level of nesting (a closing
 * tag at its element's level); blank lines go, line endings are LF, the file ends with one line
 * break. Nothing else changes: no whitespace is added where there was none, attributes, comments
 * and entities stay as written, and `<pre>`, `<textarea>`, `<script>` and `<style>` are kept as
 * they are. A collapsible run of whitespace renders the same however long it is, so the
 * snapshot renders exactly as the email does. Pretty-printers (diffable-html, htmlfy,
 * js-beautify) put every element on a line of its own, which adds whitespace between inline
 * elements and between the inline-block columns emails are built of: the snapshot would no
 * longer look like the email it stands for.
 */
import { Parser } from 'htmlparser2'

/** Elements whose content is kept byte for byte (whitespace is meaningful, or is code). */
const VERBATIM: ReadonlySet<string> = new Set(['pre', 'textarea', 'script', 'style', 'xmp'])

interface TextRun {
  start: number
  /** Exclusive. */
  end: number
  depth: number
  /** The level of the tag right after the run (a closing tag's is its element's). */
  before?: number
}

/** The text chunks outside verbatim elements, with the depth of nesting they sit at. */
function textRuns(html: string): TextRun[] {
  const runs: TextRun[] = []
  const open: string[] = []
  let verbatim = 0
  const nextTag = (level: number) => {
    const last = runs.at(-1)
    if (last && last.end === parser.startIndex) last.before = level
  }
  const parser = new Parser(
    {
      onopentag(name) {
        // After the closes it implies (`<p>` after an open `<p>`), as the parser reports them.
        nextTag(open.length)
        open.push(name)
        if (VERBATIM.has(name)) verbatim++
      },
      onclosetag(name, isImplied) {
        const at = open.lastIndexOf(name)
        if (at === -1) return
        if (!isImplied) nextTag(at)
        for (const closed of open.splice(at)) if (VERBATIM.has(closed)) verbatim--
      },
      ontext() {
        if (verbatim > 0) return
        const start = parser.startIndex
        const end = parser.endIndex + 1
        const last = runs.at(-1)
        // One text node may come in several chunks: join them.
        if (last && last.end === start && last.depth === open.length) last.end = end
        else runs.push({ start, end, depth: open.length })
      },
    },
    { decodeEntities: false, lowerCaseTags: true },
  )
  parser.end(html)
  return runs
}

const indent = (depth: number) => `\n${'  '.repeat(Math.max(0, depth))}`

/**
 * A render's HTML as its snapshot stores it.
 *
 * @example
 * normalizeHtml('<table>\r\n\r\n      <tr><td>Hi\n   Ada</td></tr>\n\n</table>  ')
 * // '<table>\n  <tr><td>Hi\n      Ada</td></tr>\n</table>\n'
 */
export function normalizeHtml(html: string): string {
  const source = html.replace(/\r\n?/g, '\n')
  const runs = textRuns(source)
  let out = ''
  let copied = 0
  for (const { start, end, depth, before } of runs) {
    out += source.slice(copied, start)
    const text = source.slice(start, end)
    out += text.replace(/[ \t\f]*\n[ \t\n\f]*/g, (run, at: number) =>
      indent(at + run.length === text.length ? (before ?? depth) : depth),
    )
    copied = end
  }
  out += source.slice(copied)
  // HTML's whitespace only: a no-break space (which `\s` and trim() include) is text.
  return `${out.replace(/^[ \t\n\f]+|[ \t\n\f]+$/g, '')}\n`
}

/**
 * A render's text part as its snapshot stores it: LF line endings, one line break at the end.
 *
 * @example normalizeText('Hi Ada\r\n\r\n') // 'Hi Ada\n'
 */
export function normalizeText(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').replace(/\n+$/, '')}\n`
}
