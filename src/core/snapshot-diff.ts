/**
 * How a render differs from its snapshot: where the first difference is (the line and column a
 * problem line points at) and a unified diff, made by the `diff` package (jsdiff).
 */
import { structuredPatch, formatPatch } from 'diff'
import { lineColumn } from '../lib/json.js'

/** Lines of context around each change, as `diff -u` and git show. */
const CONTEXT = 3
/** A diff taking longer than this is left out (two wholly different long files). */
const DIFF_TIMEOUT_MS = 1000

/**
 * The line and column (1-based, in `before`) of the first character that differs, or null when
 * the texts are equal.
 *
 * @example firstDifference('a\nbc\n', 'a\nbd\n') // { line: 2, column: 2 }
 */
export function firstDifference(
  before: string,
  after: string,
): { line: number; column: number } | null {
  if (before === after) return null
  let i = 0
  const shorter = Math.min(before.length, after.length)
  while (i < shorter && before.charCodeAt(i) === after.charCodeAt(i)) i++
  return lineColumn(before, i)
}

/**
 * The unified diff from `before` (the snapshot, named `beforeName`) to `after` (the render,
 * `afterName`), or null when they are equal or too different to diff in time.
 *
 * @example
 * unifiedDiff('snapshots/welcome/default.txt', 'welcome (default), rendered now', 'Hi Ada\n', 'Hello Ada\n')
 * // '--- snapshots/welcome/default.txt\n+++ welcome (default), rendered now\n@@ -1,1 +1,1 @@\n-Hi Ada\n+Hello Ada\n'
 */
export function unifiedDiff(
  beforeName: string,
  afterName: string,
  before: string,
  after: string,
): string | null {
  if (before === after) return null
  const patch = structuredPatch(beforeName, afterName, before, after, undefined, undefined, {
    context: CONTEXT,
    timeout: DIFF_TIMEOUT_MS,
  })
  if (!patch) return null
  // formatPatch starts with an `Index:`-less header when there is no index line; drop the `===` rule.
  return formatPatch(patch)
    .split('\n')
    .filter((line) => !/^={5,}$/.test(line))
    .join('\n')
}

/**
 * A diff cut to its first `maxLines` lines, saying how many were left out: what a console shows.
 *
 * @example shortDiff('a\nb\nc\n', 2) // 'a\nb\n… 1 more line'
 */
export function shortDiff(diff: string, maxLines: number): string {
  const lines = diff.replace(/\n$/, '').split('\n')
  if (lines.length <= maxLines) return lines.join('\n')
  const left = lines.length - maxLines
  return `${lines.slice(0, maxLines).join('\n')}\n… ${left} more line${left === 1 ? '' : 's'}`
}
