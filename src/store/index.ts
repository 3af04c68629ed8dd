/** The message log: a durable, append-only JSON Lines file behind lowdb, or memory only. */
export type * from './types.js'
export { openMessageLog, DEFAULT_MAX_MESSAGES, DEFAULT_MAX_BYTES } from './message-log.js'
export { recordSize } from './size.js'
export { ProjectTally } from './tally.js'
export { recordJson } from './record-json.js'
export {
  matchesFilter,
  compileFilter,
  formatAddress,
  isEmptyFilter,
  bareAddress,
  type RecordPredicate,
} from './filter.js'
export {
  LogClosedError,
  isLogClosed,
  LogOpenError,
  isLogOpenError,
  LogWriteError,
  isLogWriteError,
  StoreUnavailableError,
  isStoreUnavailable,
} from './errors.js'
export { nodeFs } from './log-fs.js'
export { createMemoryFaultTable } from './memory-faults.js'
export { createMemoryRejectionTable } from './memory-rejections.js'
export { MESSAGE_STATUSES, overallStatus, initialRecipients } from './recipients.js'
