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
