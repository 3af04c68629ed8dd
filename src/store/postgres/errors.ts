/** Why a PostgreSQL store could not be opened; the CLI prints `message` (no password) and exits 1. */
export type StoreOpenErrorCode = 'store_unreachable' | 'store_newer' | 'store_failed'

export class StoreOpenError extends Error {
  override readonly name = 'StoreOpenError'
  constructor(
    readonly code: StoreOpenErrorCode,
    /** `host:port/database`: never the credentials. */
    readonly store: string,
    message: string,
  ) {
    super(message)
  }
}
