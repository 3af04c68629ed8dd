/** The message log: a durable, append-only JSON Lines file behind lowdb, or memory only. */
export type * from './types.js'
export { openMessageLog, DEFAULT_MAX_MESSAGES } from './message-log.js'
export { matchesFilter, compileFilter, formatAddress, isEmptyFilter, type RecordPredicate } from './filter.js'
export { LogOpenError, isLogOpenError } from './errors.js'
