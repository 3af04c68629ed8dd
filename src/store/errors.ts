import type { LogOpenErrorCode } from './types.js'

/**
 * Why a log could not be opened. The CLI prints `message` and exits 1, so every message names
 * the file and says what to do next. Thrown before anything in the log file is changed.
 */
export class LogOpenError extends Error {
  override readonly name = 'LogOpenError'
  readonly code: LogOpenErrorCode
  /** The log file (absolute path). */
  readonly file: string

  constructor(code: LogOpenErrorCode, file: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
    this.file = file
  }
}

export function isLogOpenError(error: unknown): error is LogOpenError {
  return error instanceof LogOpenError
}

/** The errno code of a Node fs error, if any. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

export function unreadable(file: string, what: string, cause: unknown): LogOpenError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new LogOpenError(
    'log_unreadable',
    file,
    `Cannot ${what} the message log ${file}: ${reason}. Check the path and its permissions, or use --db <file> or --memory.`,
    { cause },
  )
}

/** What a failed write means for the user, by errno code. */
const REMEDIES: Record<string, string> = {
  ENOSPC: 'the disk is full; free some space',
  EDQUOT: 'the disk quota is used up; free some space',
  EACCES: 'permission denied; check the permissions of the file and its folder',
  EPERM: 'operation not permitted; check the permissions of the file and its folder',
  EROFS: 'the file system is read-only',
  EIO: 'the disk reported an I/O error',
}

/**
 * A write to the log failed (a full disk, lost permissions, a dying drive): nothing of what
 * waited on it was stored. The HTTP layer answers it `507 log_write_failed`; the log retries at
 * the next write.
 */
export class LogWriteError extends Error {
  override readonly name = 'LogWriteError'
  readonly code = 'log_write_failed'
  /** The log file (absolute path). */
  readonly file: string
  /** The errno code (`ENOSPC`, `EACCES`, …), or `unknown`. */
  readonly reason: string

  constructor(file: string, cause: unknown) {
    const reason = errnoCode(cause) ?? 'unknown'
    const what = REMEDIES[reason] ?? (cause instanceof Error ? cause.message : String(cause))
    super(
      `Could not write the message log ${file} (${reason}: ${what}). Nothing was stored; sendbox tries again at the next write.`,
      { cause },
    )
    this.file = file
    this.reason = reason
  }
}

/**
 * Whether `error` is a failed write of the log.
 *
 * @example if (isLogWriteError(error)) throw apiError(507, 'log_write_failed', error.message)
 */
export function isLogWriteError(error: unknown): error is LogWriteError {
  return error instanceof LogWriteError
}

/**
 * The log was closed (the sandbox is stopping) while a request still wanted it: nothing of that
 * request was stored. The HTTP layer answers it `503 shutting_down`, as a wait the stop ends,
 * where a plain Error made a bare 500 and an "Unexpected error" in the console.
 */
export class LogClosedError extends Error {
  override readonly name = 'LogClosedError'
  constructor(readonly file: string) {
    super(
      `The sandbox is stopping: the message log ${file} is closed, and nothing of this request was stored. Send it again once sendbox is back.`,
    )
  }
}

/**
 * Whether `error` is a use of the log after it closed.
 *
 * @example if (isLogClosed(error)) throw apiError(503, 'shutting_down', error.message)
 */
export function isLogClosed(error: unknown): error is LogClosedError {
  return error instanceof LogClosedError
}

/**
 * A shared store (PostgreSQL) could not be reached: nothing was stored or read. The HTTP layer
 * answers it `503 store_unavailable` with Retry-After; the next request tries again, so the
 * sandbox works again without a restart once the database is back. `store` is
 * `host:port/database`: never the credentials.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError'
  readonly code = 'store_unavailable'
  constructor(
    readonly store: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(
      `The PostgreSQL store ${store} cannot be reached (${reason}): nothing was stored or read. Try again shortly; sendbox reconnects on its own.`,
      options,
    )
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError
}
