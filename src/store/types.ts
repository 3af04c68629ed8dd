/** The public shape of the stores. Only these types and what index.ts exports leave src/store. */
import type { Warning } from '../lib/problems.js'
import type { LogFs } from './log-fs.js'

export type { LogFs }

export type { Warning }

export interface Address {
  name: string | null
  address: string
}

/**
 * Where a recipient is (docs/delivery.md). `sent` until its first outcome; then `delivered`,
 * `deferred` (delivered later), `bounced`, `complained` (after `delivered`) or `suppressed`.
 */
export type RecipientStatus =
  | 'sent'
  | 'delivered'
  | 'deferred'
  | 'bounced'
  | 'complained'
  | 'suppressed'

/** A message's overall status: `sent` until every recipient has one of the others. */
export type MessageStatus = RecipientStatus

/** What happened to a recipient: a state change, or engagement (`opened`, `clicked`) that leaves the state as it is. */
export type RecipientEventType =
  | 'sent'
  | 'delivered'
  | 'deferred'
  | 'bounced'
  | 'complained'
  | 'suppressed'
  | 'opened'
  | 'clicked'

export interface RecipientEvent {
  type: RecipientEventType
  /** ISO time. */
  at: string
  /** `clicked`: the link. */
  url?: string
  /** `bounced`: always a hard bounce here. */
  bounce?: { type: 'hard' }
  /** Set on events made with POST /_sandbox/api/messages/:id/events (or `sandbox.simulate`). */
  simulated?: true
}

export interface Recipient {
  /** The bare address, as sent. */
  address: string
  status: RecipientStatus
  /** Oldest first; the first is always `sent`. */
  events: RecipientEvent[]
}

/** One event for one recipient of a message, by its index in `recipients` (an address may occur twice). */
export interface RecipientEventEntry extends RecipientEvent {
  recipient: number
}

export interface MessageRecord {
  id: string
  status: MessageStatus
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
  /**
   * The times the message was sent on to a real mailbox through the relay (`--relay`), oldest
   * first; absent until the first. Before `recipients` in the record, which the log keeps last
   * (compaction rewrites a record's states in place only in that shape).
   */
  releases?: Release[]
  /** One per `to` entry, in the same order. */
  recipients: Recipient[]
}

/** One release of a message: sent on through the relay to real addresses (docs/inspector.md). */
export interface Release {
  /** The addresses it was sent to, as asked. */
  to: string[]
  /** ISO time the relay answered. */
  at: string
  /** Of `to`, those the relay refused (it accepted the others). */
  rejected: string[]
  /** The relay's last reply, e.g. `250 2.0.0 Ok: queued as 4F2`. */
  response: string
}

/** A link a reader could follow (docs/testing.md#what-a-record-carries); `text` is null for a URL only the text part has. */
export interface MessageLink {
  href: string
  text: string | null
}

/**
 * What sendbox reads in a message for a test (docs/testing.md#what-a-record-carries): its links and one-time codes.
 * Computed from `html` and `text` when a record is read, never stored.
 */
export interface MessageReading {
  links: MessageLink[]
  codes: string[]
}

/** A message record as the inspector and the programmatic API hand it out: with its reading. */
export type ReadRecord = MessageRecord & MessageReading

/** An address that sends of one project (token) no longer reach: they end `suppressed`. */
export interface Suppression {
  /** Lower-cased bare address. */
  address: string
  project: string
  reason: 'bounced' | 'complained'
  createdAt: string
  /** The message whose bounce or complaint added it. */
  messageId?: string
}

/** Which suppressions a removal takes: all of them, a project's, an address's, or one. */
export interface SuppressionFilter {
  address?: string
  project?: string
}

/** The inspector's filters. Text filters are case-insensitive substrings. */
export interface MessageFilter {
  to?: string
  /**
   * Exact, case-insensitive: a message one of whose recipients has this address (docs/testing.md),
   * where `to` is a substring (`ada@example.com` is not `lovelace-ada@example.com`). A
   * `Name <address>` form counts by its address.
   */
  recipient?: string
  from?: string
  template?: string
  subject?: string
  /** Exact match. */
  project?: string
  /** Only messages created at or after this ISO time. */
  since?: string
  /** Exactly this overall status. */
  status?: MessageStatus
  /**
   * Only messages stored after this cursor: a position in the log that the log hands out
   * (`cursor()`, a list's `cursor`), opaque to its readers. Unlike `since`, it needs no clock and
   * tells apart two messages of the same millisecond.
   */
  after?: string
  limit?: number
  offset?: number
}

export interface MessagePage {
  messages: MessageRecord[]
  total: number
  /** The log's cursor when the page was read: `after` it, only messages stored since count. */
  cursor: string
}

/**
 * What a clear removed: how many messages in all, and of each project that had any among them
 * (a project's event stream hears its own count, docs/team.md).
 */
export interface Cleared {
  count: number
  byProject: Record<string, number>
}

/** A value now, or after a round trip: the JSON Lines log answers reads at once, a database later. */
export type Awaitable<T> = T | Promise<T>

/**
 * Where a sandbox keeps its messages and suppressions: the one interface the domain (src/core)
 * uses, whichever store is behind it (the JSON Lines log, or PostgreSQL). Reads are `Awaitable`:
 * callers always `await` them.
 */
export interface MessageStore {
  /**
   * Resolves once the record is durable as the store promises it (the log: its line handed to
   * the OS). A store with a `work` queue adds `work` in the same transaction; the log has none.
   * Resolves with whether the record is still stored then: a clear or a delete made while it was
   * being written (or the `--max-messages` cut) may have removed it already.
   */
  append(record: MessageRecord, work?: readonly WorkItem[]): Promise<boolean>
  /** Newest first; `total` counts every match before limit/offset. */
  list(filter?: MessageFilter): Awaitable<MessagePage>
  get(id: string): Awaitable<MessageRecord | undefined>
  /** Newest record matching the filter (limit/offset ignored). */
  latest(filter?: MessageFilter): Awaitable<MessageRecord | undefined>
  /**
   * Where the store stands: a message stored from now on is `after` this cursor, none stored
   * before is. Opaque (each store hands out its own: a count of the records stored, a sequence).
   */
  cursor(): Awaitable<string>
  /** Whether a record this store handed out passes the filter, `after` included. */
  matches(record: MessageRecord, filter: MessageFilter): boolean
  /** false when there was no such message. */
  delete(id: string): Promise<boolean>
  /**
   * Clears all, or only the messages matching the filter. Returns how many went, in all and of
   * each project. Suppressions stay.
   */
  clear(filter?: MessageFilter): Promise<Cleared>
  /**
   * Appends events to a message's recipients and returns the updated record, a new object
   * (records handed out earlier do not change). Undefined when the message is gone.
   */
  addEvents(
    id: string,
    events: readonly RecipientEventEntry[],
    /** The record as the caller just read it from this store: a store may start from it. */
    base?: MessageRecord,
  ): Promise<MessageRecord | undefined>
  /**
   * Adds a release to a message's `releases` as one small line, like `addEvents`, and returns
   * the updated record (a new object). Undefined when the message is gone.
   */
  addRelease(id: string, release: Release): Promise<MessageRecord | undefined>
  /** The suppression of this address for this project, if any. */
  suppression(project: string, address: string): Awaitable<Suppression | undefined>
  /** Suppressions, newest first. */
  suppressions(filter?: SuppressionFilter): Awaitable<Suppression[]>
  /** Adds (or refreshes) a suppression. */
  suppress(entry: Suppression): Promise<void>
  /** Removes the matching suppressions; returns them. */
  unsuppress(filter?: SuppressionFilter): Promise<Suppression[]>
  count(): Awaitable<number>
  /**
   * Messages dropped by `maxMessages` or `maxBytes` since this store was opened: of one project
   * (its own messages that went, whichever project's send pushed them out), or of all.
   */
  dropped(project?: string): Awaitable<number>
  /** Bytes the live records take (the length of their JSON): of one project's records, or of all. */
  bytes(project?: string): Awaitable<number>
  /** Whether the store is being written; kept in memory, so it answers at once. */
  health(): LogHealth
  /** Which store this is and the format its data is written in (health and the banner say it). */
  readonly format: StoreFormat
  /** Writes anything pending and lets go of what it holds (lock, connections). Idempotent. */
  close(): Promise<void>
  /**
   * Present on a store several processes share (PostgreSQL): how they tell each other what
   * happened. Absent on the log, which one process holds.
   */
  readonly channel?: StoreChannel
  /** Present on a store several processes share: the armed faults, counted down by all of them. */
  readonly faults?: FaultTable
  /**
   * Present on a store several processes share: work any of them may claim (delivery steps,
   * webhook attempts), each item done once. Absent on the log, whose one process keeps timers.
   */
  readonly work?: WorkQueue
  /** Present on a store several processes share: every webhook delivery with its attempts. */
  readonly webhooks?: WebhookTable
  /** Present on a store several processes share: the recent rejected sends. */
  readonly rejections?: RejectionTable
}

/**
 * A store's kind and the number of its format: the log file's header version, or the PostgreSQL
 * schema's. Processes that share a database run the same format (docs/team.md#upgrades).
 */
export interface StoreFormat {
  kind: 'log' | 'postgres'
  format: number
}

/** A plain JSON object, as the shared tables keep what the domain hands them. */
export type JsonObject = { [key: string]: unknown }

/** One item of work: unique by `kind` and `key` (adding it again does nothing). */
export interface WorkItem {
  kind: string
  key: string
  /** When it may be claimed (ms since the epoch). */
  dueAt: number
  /**
   * Items of one lane are claimed one at a time, oldest first: the next waits until the one
   * before is done (a webhook URL's events of one message go out in order).
   */
  lane?: string
  payload: JsonObject
  /**
   * Added already leased to the process adding it, for this long: that process runs it at once
   * (it holds what the item needs), and another claims it only if its lease runs out.
   */
  leaseMs?: number
}

/** An item this process claimed: it holds it until `done`, `later`, or its lease runs out. */
export interface ClaimedWork extends WorkItem {
  /** How many times it was put back with `later`. */
  attempts: number
}

/**
 * Due work shared by the processes of one sandbox. An item claimed by a process that then dies
 * is claimable again once its lease has run out.
 */
export interface WorkQueue {
  /** Adds the items (those already there stay as they are) and wakes the processes. */
  add(items: readonly WorkItem[]): Promise<void>
  /**
   * Claims up to `limit` due items for `leaseMs`; `next` is when the earliest item not claimed
   * now falls due (ms since the epoch), null when there is none.
   */
  claim(limit: number, leaseMs: number): Promise<{ items: ClaimedWork[]; next: number | null }>
  /** The item is done: it goes (the next item of its lane may go now). False when it was no longer this process's. */
  done(item: Pick<WorkItem, 'kind' | 'key' | 'lane'>): Promise<boolean>
  /** Puts a claimed item back, due at `dueAt`, with its attempts counted and a new payload. */
  later(item: Pick<WorkItem, 'kind' | 'key'>, dueAt: number, payload: JsonObject): Promise<void>
  /** Removes an item whoever holds it (a manual retry got it through). */
  drop(item: Pick<WorkItem, 'kind' | 'key'>): Promise<void>
  /** Items waiting, claimed or not. */
  size(): Promise<number>
  /** Told when another process added work (so this one claims it at once, not at its next poll). */
  onAdded(listener: () => void): () => void
}

/** A webhook delivery as the shared table keeps it (its shape is src/core's business). */
export interface StoredWebhook extends JsonObject {
  id: string
  webhookId: string
  url: string
  messageId: string
  project: string
  type: string
  status: string
}

/** What the webhook table filters on. */
export interface WebhookTableFilter {
  message?: string
  project?: string
  type?: string
  status?: string
  url?: string
  limit?: number
}

/** Webhook deliveries shared by the processes of one sandbox. */
export interface WebhookTable {
  /**
   * Adds deliveries unless one of the same event (`webhookId`) to the same URL is there already,
   * with their first attempts as work due now, in one transaction; returns those it added, and
   * of them those whose first attempt is this process's already (asked with `leaseMs`, and
   * nothing before it in its lane): to run at once, without a claim.
   */
  add(
    deliveries: readonly StoredWebhook[],
    work: (delivery: StoredWebhook) => WorkItem,
  ): Promise<{ added: StoredWebhook[]; leased: StoredWebhook[] }>
  /** Writes a delivery's new state (its attempts, status). */
  save(delivery: StoredWebhook): Promise<void>
  /**
   * After an automatic attempt: writes the delivery's new state and, at once, finishes its
   * claimed row of work (`retryAt` null: it goes, and its lane moves on) or puts it back due at
   * `retryAt`, with its attempts counted.
   */
  settle(
    delivery: StoredWebhook,
    item: Pick<ClaimedWork, 'kind' | 'key' | 'lane'>,
    retryAt: number | null,
  ): Promise<void>
  get(id: string): Promise<StoredWebhook | undefined>
  /** Newest first; `total` counts the matches before `limit`. */
  list(filter?: WebhookTableFilter): Promise<{ deliveries: StoredWebhook[]; total: number }>
  /** Deliveries still pending: of one project, or of all. */
  pending(project?: string): Promise<number>
}

/** Rejected sends shared by the processes of one sandbox (each kept as the domain made it). */
export interface RejectionTable {
  add(rejection: JsonObject & { project: string | null }): Promise<void>
  /**
   * Newest first, the newest `max` of each project: a rejection without one (a token no project
   * lists) is of none, kept apart, so no project's rejections push out another's.
   */
  list(max: number): Promise<JsonObject[]>
  /** Forgets all, or one project's; returns how many went. */
  clear(project?: string): Promise<number>
}

/** An armed fault as a shared store keeps it; what it means is src/core/faults.ts's business. */
export interface StoredFault {
  id: string
  status: number
  remaining: number
  match: { template?: string; to?: string }
  retryAfter: number
  createdAt: string
  /** The project that armed it, whose sends alone it fails. */
  project?: string
}

/** The armed faults of a sandbox whose processes share a store. */
export interface FaultTable {
  /** Those with sends left to fail, oldest first. */
  list(): Promise<StoredFault[]>
  /**
   * Arms one unless `max` of its project's are armed (then null: another project's never count);
   * the id is the table's, unique across processes.
   */
  add(fault: Omit<StoredFault, 'id'>, max: number): Promise<StoredFault | null>
  /** Disarms all (with `project`, that project's); returns how many were armed. */
  clear(project?: string): Promise<number>
  /** Counts the fault down by one send; undefined when it had none left (another process took the last). */
  countDown(id: string): Promise<StoredFault | undefined>
}

/** A small JSON notice between the processes of one store (at most ~7,000 bytes once serialised). */
export type Notice = { type: string } & Record<string, unknown>

/** Notices between the processes that share a store (PostgreSQL: LISTEN/NOTIFY). */
export interface StoreChannel {
  /** Tells every other process; resolves once sent. */
  publish(notice: Notice): Promise<void>
  /** What the other processes publish, in the order sent (never this process's own). */
  subscribe(listener: (notice: Notice) => void): () => void
}

/**
 * The JSON Lines log: a `MessageStore` whose reads answer at once, from memory (its own tests,
 * and the tools that read a log file, use them so).
 */
export interface MessageLog extends MessageStore {
  /** The file behind the log, or null with `memory`. */
  readonly file: string | null
  /** Resolves once the record's line has been handed to the OS (write(2) returned). */
  append(record: MessageRecord): Promise<boolean>
  list(filter?: MessageFilter): MessagePage
  get(id: string): MessageRecord | undefined
  latest(filter?: MessageFilter): MessageRecord | undefined
  /** A count of the records stored, handed out at once (a wait takes it at the call). */
  cursor(): string
  /**
   * Appends events to a message's recipients as one small line (never a rewrite) and returns
   * the updated record, a new object. Undefined when the message is gone.
   */
  addEvents(id: string, events: readonly RecipientEventEntry[]): Promise<MessageRecord | undefined>
  suppression(project: string, address: string): Suppression | undefined
  suppressions(filter?: SuppressionFilter): Suppression[]
  count(): number
  dropped(project?: string): number
  bytes(project?: string): number
  /** Whether the log is being written: `write_failed` from a failed write until the next that works. */
  health(): LogHealth
  /** Writes anything pending, compacts if worthwhile, releases the lock. Idempotent. */
  close(): Promise<void>
}

/**
 * `ok`: written; `write_failed`: the last write failed (sends answer 507); `memory`: no file
 * (--memory); `unavailable`: a shared store (PostgreSQL) cannot be reached (sends and reads
 * answer 503 store_unavailable) until a query reaches it again.
 */
export type LogState = 'ok' | 'write_failed' | 'memory' | 'unavailable'

export interface LogHealth {
  state: LogState
  /** The file, or null with `memory`. */
  file: string | null
  /**
   * With `write_failed`: the errno code (`ENOSPC`, `EACCES`, …) and the sentence the console said;
   * with `unavailable`: the client's code (`ECONNREFUSED`) and the store's error message.
   */
  reason?: string
  message?: string
  /** With `write_failed` or `unavailable`: when this spell began (ISO time). */
  since?: string
}

export interface MessageLogOptions {
  /** null keeps everything in memory (no file, no lock). */
  file: string | null
  /** Oldest messages are dropped past this many (default 5000). */
  maxMessages?: number
  /** …or past this many bytes of records, their JSON lines (default 256 MiB). */
  maxBytes?: number
  warn?: (message: string) => void
  /** The file-system calls the log makes; node:fs/promises by default. Tests hand in failing ones. */
  fs?: LogFs
  /** Told when `health()` changes (a write failed, writes work again). */
  onHealth?: (health: LogHealth) => void
  /** How often an idle log checks that its file is still there (default 2000 ms). */
  checkIntervalMs?: number
}

/** Why a log could not be opened; the CLI prints `message` and exits 1. */
export type LogOpenErrorCode = 'log_invalid' | 'log_locked' | 'log_unreadable'
