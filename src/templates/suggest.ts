/**
 * "Did you mean" for an unknown slug: the nearest slugs by edit distance, plus slugs containing
 * what was typed (`order` → `order-receipt`), which edit distance alone would miss.
 */
import { distance } from 'fastest-levenshtein'

const MAX_QUERY = 256

export function suggestSlugs(query: string, slugs: Iterable<string>, max = 3): string[] {
  if (typeof query !== 'string' || query.length === 0 || query.length > MAX_QUERY) return []
  const wanted = query.toLowerCase()
  const near = Math.max(2, Math.floor(wanted.length / 3))
  const scored: Array<{ slug: string; score: number }> = []
  for (const slug of slugs) {
    const candidate = slug.toLowerCase()
    const d = distance(wanted, candidate)
    const contains = wanted.length >= 2 && candidate.includes(wanted)
    if (d <= near || contains) scored.push({ slug, score: d })
  }
  scored.sort((a, b) => a.score - b.score || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
  return scored.slice(0, max).map((s) => s.slug)
}
