import { distance } from 'fastest-levenshtein'

/** Queries longer than this are not compared: edit distance is quadratic. */
const MAX_QUERY = 256

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/**
 * "Did you mean": the candidates near `query`, best first, by one rule used everywhere (slugs,
 * request fields, flags). Case-insensitive; a candidate is near when it contains what was typed
 * (`order` → `order-receipt`), shares a prefix of 3 or more (`templateVars` → `templateVariables`),
 * or is within an edit distance of a third of its length (at least 2). Ranked by containment,
 * then shared prefix, then distance, then name.
 *
 * @example
 * nearest('templateVars', ['template', 'templateVariables'])  // ['templateVariables', 'template']
 * nearest('welcom', ['welcome', 'order-receipt'])              // ['welcome']
 */
export function nearest(query: string, candidates: Iterable<string>, max = 3): string[] {
  if (typeof query !== 'string' || query.length === 0 || query.length > MAX_QUERY) return []
  const wanted = query.toLowerCase()
  const ranked: Array<{
    name: string
    contains: number
    slip: number
    prefix: number
    distance: number
  }> = []
  for (const name of candidates) {
    const candidate = name.toLowerCase()
    const scored = {
      name,
      contains: wanted.length >= 2 && candidate.includes(wanted) ? 1 : 0,
      slip: isSlip(wanted, candidate) ? 1 : 0,
      prefix: commonPrefix(wanted, candidate),
      distance: distance(wanted, candidate),
    }
    if (
      scored.contains ||
      scored.prefix >= 3 ||
      scored.distance <= Math.max(2, Math.floor(candidate.length / 3))
    )
      ranked.push(scored)
  }
  ranked.sort(
    (a, b) =>
      b.contains - a.contains ||
      b.slip - a.slip ||
      b.prefix - a.prefix ||
      a.distance - b.distance ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  )
  return ranked.slice(0, max).map((r) => r.name)
}

/**
 * One slip of the fingers: two neighbouring letters swapped (`prot` for `port`). It outranks a
 * longer shared start: `--prot` means `--port`, not `--projects`.
 *
 * @example isSlip('prot', 'port') // true
 */
function isSlip(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false
  const at = [...a].findIndex((c, i) => c !== b[i])
  return a[at] === b[at + 1] && a[at + 1] === b[at] && a.slice(at + 2) === b.slice(at + 2)
}
