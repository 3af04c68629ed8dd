import { LogOpenError } from './errors.js'
import type {
  MessageRecord,
  RecipientEventEntry,
  Release,
  Suppression,
  SuppressionFilter,
} from './types.js'

/**
 * The log file's format (docs/log.md): its header, the kinds of line, and how one line is read.
 *
 *   line 1   {"sendbox":"log","version":1}
 *   then     a message record (has `id` and `status`), or a tombstone:
 *            {"op":"delete","id":"…"}        one message deleted
 *            {"op":"delete","ids":["…",…]}   a filtered clear: one line, so it lands whole or not at all
 *            {"op":"clear"}                  every message before it is gone (suppressions stay)
 *            {"op":"events","id":"…","events":[{"recipient":0,"type":"delivered","at":"…"}]}
 *                                            a message's delivery events (docs/delivery.md), folded into its record
 *            {"op":"release","id":"…","release":{"to":["…"],"at":"…","rejected":[],"response":"250 …"}}
 *                                            a message sent on through the relay, added to its `releases`
 *            {"op":"suppress","address":"…","project":"…","reason":"bounced","createdAt":"…"}
 *            {"op":"unsuppress","address"?:"…","project"?:"…"}   removes the matching suppressions
 */

/** The log file's format: the header's `version`, which health and the start banner say. */
export const LOG_FORMAT = 1

export const LOG_HEADER = `{"sendbox":"log","version":${LOG_FORMAT}}`

export type Tombstone =
  | { op: 'delete'; id: string }
  | { op: 'delete'; ids: string[] }
  | { op: 'clear' }
export type EventsEntry = { op: 'events'; id: string; events: RecipientEventEntry[] }
export type ReleaseEntry = { op: 'release'; id: string; release: Release }
export type SuppressEntry = { op: 'suppress' } & Suppression
export type UnsuppressEntry = { op: 'unsuppress' } & SuppressionFilter
export type LogEntry =
  | MessageRecord
  | Tombstone
  | EventsEntry
  | ReleaseEntry
  | SuppressEntry
  | UnsuppressEntry

/** lowdb's data: the live records in arrival order, and the suppressions, oldest first. */
export interface LogData {
  records: MessageRecord[]
  suppressions: Suppression[]
}

/** One suppression per project and address. */
export const suppressionKey = (project: string, address: string): string =>
  `${project}\u0000${address.toLowerCase()}`

/** Whether a suppression is one a removal with this filter takes. */
export function matchesSuppression(entry: Suppression, filter: SuppressionFilter): boolean {
  return (
    (filter.project === undefined || entry.project === filter.project) &&
    (filter.address === undefined || entry.address === filter.address.toLowerCase())
  )
}

/**
 * Throws `log_invalid` unless `firstLine` is the header of a log this sendbox reads.
 *
 * @example checkHeader('/tmp/messages.jsonl', LOG_HEADER) // passes
 */
export function checkHeader(file: string, firstLine: string): void {
  let parsed: unknown = null
  try {
    parsed = JSON.parse(firstLine)
  } catch {
    // not JSON: not ours
  }
  const header = (parsed ?? {}) as { sendbox?: unknown; version?: unknown }
  if (header.sendbox !== 'log') {
    throw new LogOpenError(
      'log_invalid',
      file,
      `${file} is not a sendbox message log: its first line must be ${LOG_HEADER}. ` +
        'The file was left untouched; point --db at another file (or move this one away), or use --memory.',
    )
  }
  if (header.version !== LOG_FORMAT) {
    throw new LogOpenError(
      'log_invalid',
      file,
      `${file} is a sendbox log of version ${JSON.stringify(header.version)}, which this sendbox cannot read (it reads version ${LOG_FORMAT}). ` +
        'The file was left untouched; upgrade sendbox, or use another --db file.',
    )
  }
}

/**
 * A log entry, or why the line is not one (a sentence, for the `log_invalid` message).
 *
 * @example decode('{"op":"clear"}') // { op: 'clear' }
 */
export function decode(raw: string): LogEntry | string {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'not a JSON object'
  const entry = value as Record<string, unknown>
  if ('op' in entry) {
    if (entry.op === 'clear') return { op: 'clear' }
    if (entry.op === 'delete' && typeof entry.id === 'string') return { op: 'delete', id: entry.id }
    if (
      entry.op === 'delete' &&
      Array.isArray(entry.ids) &&
      entry.ids.every((id) => typeof id === 'string')
    )
      return { op: 'delete', ids: entry.ids as string[] }
    if (
      entry.op === 'events' &&
      typeof entry.id === 'string' &&
      Array.isArray(entry.events) &&
      entry.events.every(isEventEntry)
    )
      return entry as unknown as EventsEntry
    if (entry.op === 'release' && typeof entry.id === 'string' && isRelease(entry.release))
      return entry as unknown as ReleaseEntry
    if (
      entry.op === 'suppress' &&
      typeof entry.address === 'string' &&
      typeof entry.project === 'string' &&
      typeof entry.reason === 'string' &&
      typeof entry.createdAt === 'string'
    )
      return entry as unknown as SuppressEntry
    if (
      entry.op === 'unsuppress' &&
      isOptionalString(entry.address) &&
      isOptionalString(entry.project)
    )
      return entry as unknown as UnsuppressEntry
    return `unknown log operation ${JSON.stringify(entry.op)}`
  }
  if (typeof entry.id !== 'string' || typeof entry.status !== 'string')
    return 'neither a message (id, status) nor a tombstone (op)'
  return entry as unknown as MessageRecord
}

function isEventEntry(value: unknown): boolean {
  const event = value as { recipient?: unknown; type?: unknown; at?: unknown } | null
  return (
    typeof event === 'object' &&
    event !== null &&
    Number.isInteger(event.recipient) &&
    typeof event.type === 'string' &&
    typeof event.at === 'string'
  )
}

function isRelease(value: unknown): boolean {
  const release = value as Partial<Record<keyof Release, unknown>> | null
  const strings = (list: unknown) =>
    Array.isArray(list) && list.every((item) => typeof item === 'string')
  return (
    typeof release === 'object' &&
    release !== null &&
    strings(release.to) &&
    strings(release.rejected) &&
    typeof release.at === 'string' &&
    typeof release.response === 'string'
  )
}

const isOptionalString = (value: unknown): boolean =>
  value === undefined || typeof value === 'string'
