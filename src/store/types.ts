/** The public shape of the message log. Only these types and `openMessageLog` leave src/store. */
import type { Warning } from '../lib/problems.js'

export type { Warning }

export interface Address {
  name: string | null
  address: string
}


export interface MessageRecord {
  id: string
  status: 'sent'
  createdAt: string
  /** First 8 hex chars of the SHA-256 of the token. */
  project: string
  /** e.g. `sandbox_…f3a9`: never the full token. */
  tokenHint: string
  template: string
  from: Address
  to: Address[]
  subject: string
  templateVariables: Record<string, unknown>
  html: string
  text: string
  warnings: Warning[]
}

/** The inspector's filters. Text filters are case-insensitive substrings. */
export interface MessageFilter {
  to?: string
  from?: string
  template?: string
  subject?: string
  /** Exact match. */
  project?: string
  /** Only messages created at or after this ISO time. */
  since?: string
  limit?: number
  offset?: number
}

export interface MessagePage {
  messages: MessageRecord[]
  total: number
}

export interface MessageLog {
  /** The file behind the log, or null with `memory`. */
  readonly file: string | null
  /** Resolves once the record's line has been handed to the OS (write(2) returned). */
  append(record: MessageRecord): Promise<void>
  /** Newest first; `total` counts every match before limit/offset. */
  list(filter?: MessageFilter): MessagePage
  get(id: string): MessageRecord | undefined
  /** Newest record matching the filter (limit/offset ignored). */
  latest(filter?: MessageFilter): MessageRecord | undefined
  /** false when there was no such message. */
  delete(id: string): Promise<boolean>
  /** Clears all, or only the messages matching the filter. Returns how many went. */
  clear(filter?: MessageFilter): Promise<number>
  count(): number
  /** Messages dropped by `maxMessages` or `maxBytes` since this log was opened. */
  dropped(): number
  /** Bytes the live records take (the length of their JSON lines). */
  bytes(): number
  /** Writes anything pending, compacts if worthwhile, releases the lock. Idempotent. */
  close(): Promise<void>
}

export interface MessageLogOptions {
  /** null keeps everything in memory (no file, no lock). */
  file: string | null
  /** Oldest messages are dropped past this many (default 5000). */
  maxMessages?: number
  /** …or past this many bytes of records, their JSON lines (default 256 MiB). */
  maxBytes?: number
  warn?: (message: string) => void
}

/** Why a log could not be opened; the CLI prints `message` and exits 1. */
export type LogOpenErrorCode = 'log_invalid' | 'log_locked' | 'log_unreadable'
