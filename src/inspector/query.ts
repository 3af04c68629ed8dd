import type { H3Event } from 'h3'
import { apiError } from '../http/errors.js'
import type { MessageFilter } from '../store/types.js'
import { WAIT_DEFAULT_MS, WAIT_MAX_MS } from '../core/wait.js'
import { isMessageStatus, MESSAGE_STATUSES } from '../store/index.js'

/** Query string → filters, each bad value a 400 naming its parameter. */

export const LIST_DEFAULT_LIMIT = 50
export const LIST_MAX_LIMIT = 1000
const TEXT_FILTERS = ['to', 'from', 'template', 'subject', 'project'] as const

export function badParameter(name: string, message: string) {
  return apiError(400, 'invalid_parameter', `The query parameter "${name}" ${message}.`, { details: [{ parameter: name, message }] })
}

export function integer(params: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = params.get(name)
  if (raw === null) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw badParameter(name, `must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`)
  return n
}

export function parseFilter(event: H3Event, { paging }: { paging: boolean }): MessageFilter {
  const params = event.url.searchParams
  const filter: MessageFilter = {}
  for (const name of TEXT_FILTERS) {
    const value = params.get(name)
    if (value !== null && value !== '') filter[name] = value
  }
  const since = params.get('since')
  if (since !== null && since !== '') {
    if (Number.isNaN(Date.parse(since))) throw badParameter('since', `must be an ISO time such as 2026-11-21T10:00:00Z (got ${JSON.stringify(since)})`)
    filter.since = since
  }
  const status = params.get('status')
  if (status !== null && status !== '') {
    if (!isMessageStatus(status)) throw badParameter('status', `must be one of ${MESSAGE_STATUSES.join(', ')} (got ${JSON.stringify(status)})`)
    filter.status = status
  }
  if (paging) {
    filter.limit = integer(params, 'limit', 1, LIST_MAX_LIMIT) ?? LIST_DEFAULT_LIMIT
    filter.offset = integer(params, 'offset', 0, Number.MAX_SAFE_INTEGER) ?? 0
  }
  return filter
}

export function parseTimeout(event: H3Event): number {
  return integer(event.url.searchParams, 'timeout', 0, WAIT_MAX_MS) ?? WAIT_DEFAULT_MS
}
