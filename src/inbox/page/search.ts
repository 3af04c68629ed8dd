/**
 * The search box's syntax, mapped onto the inspector's filters (which it ANDs):
 *
 *   to:ada from:acme template:welcome project:1f2e3d4c status:bounced subject:"password reset"  plain words
 *
 * Plain words are matched against the subject, as one phrase. Values with spaces take quotes.
 * Every match is a case-insensitive substring (project: and status: are exact). A key given twice: the last wins.
 */

import type { Address, MessageSummary } from './api.js'

export const SEARCH_KEYS = ['to', 'from', 'subject', 'template', 'project', 'status'] as const
export type SearchKey = (typeof SEARCH_KEYS)[number]
export type SearchFilter = Partial<Record<SearchKey, string>>

const TOKEN = /([A-Za-z]+):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/g

export function parseSearch(input: string): SearchFilter {
  const filter: SearchFilter = {}
  const words: string[] = []
  for (const match of input.matchAll(TOKEN)) {
    const [token, rawKey, quoted, bare, quotedWord, word] = match
    if (rawKey !== undefined) {
      const key = rawKey.toLowerCase() as SearchKey
      const value = (quoted ?? bare ?? '').trim()
      if ((SEARCH_KEYS as readonly string[]).includes(key)) {
        if (value) filter[key] = value
        continue
      }
      // Not one of ours (e.g. "Re:"): an ordinary word.
      words.push(token)
      continue
    }
    const text = (quotedWord ?? word ?? '').trim()
    if (text) words.push(text)
  }
  if (words.length) filter.subject = [filter.subject, ...words].filter(Boolean).join(' ')
  return filter
}

export function filterToQuery(filter: SearchFilter): URLSearchParams {
  const query = new URLSearchParams()
  for (const key of SEARCH_KEYS) {
    const value = filter[key]
    if (value) query.set(key, value)
  }
  return query
}

export const isFiltered = (filter: SearchFilter): boolean =>
  SEARCH_KEYS.some((key) => !!filter[key])

/** "to:ada, subject:reset" — for dialogs and empty states. */
export function describeFilter(filter: SearchFilter): string {
  return SEARCH_KEYS.filter((key) => filter[key])
    .map((key) => `${key}: ${filter[key]}`)
    .join(', ')
}

/** An address as the inspector's `to` and `from` filters read it: `Name <address>`, a name with specials quoted. */
function filterForm({ name, address }: Address): string {
  if (!name) return address
  const shown = /[(),.:;<>@[\]\\"]/.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : name
  return `${shown} <${address}>`
}

const contains = (haystack: string, needle: string): boolean =>
  haystack.toLowerCase().includes(needle.toLowerCase())

/**
 * Whether a message passes the filter, decided as the inspector decides it (src/store/filter.ts,
 * `compileFilter`; a test keeps the two in step): a message that arrives live joins a searched
 * list without a request.
 */
export function matchesSearch(m: MessageSummary, filter: SearchFilter): boolean {
  const { to, from, template, subject, project, status } = filter
  return (
    (!project || m.project === project) &&
    (!status || m.status === status) &&
    (!template || contains(m.template, template)) &&
    (!subject || contains(m.subject, subject)) &&
    (!from || contains(filterForm(m.from), from)) &&
    (!to || m.to.some((a) => contains(filterForm(a), to)))
  )
}
