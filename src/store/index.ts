/** The message log: a durable, append-only JSON Lines file behind lowdb, or memory only. */
export type * from './types.js'
export { openMessageLog, DEFAULT_MAX_MESSAGES } from './message-log.js'
export { matchesFilter, compileFilter, formatAddress, type RecordPredicate } from './filter.js'
export { LogOpenError, isLogOpenError } from './errors.js'
export { MESSAGE_STATUSES, isMessageStatus, overallStatus, initialRecipients } from './recipients.js'
