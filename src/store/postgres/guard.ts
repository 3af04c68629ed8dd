import { StoreUnavailableError } from '../errors.js'

/** Client codes (postgres.js, Node's net) that mean the database could not be reached. */
const NETWORK: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
])

/**
 * Whether an error means the database is away rather than the query wrong: the network codes,
 * SQLSTATE class 08 (connection exception) and 57P01-57P03 (shut down, crashed, starting up).
 */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return false
  return NETWORK.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code)
}

/**
 * The same object, each method's failure to reach the database turned into
 * `StoreUnavailableError` (naming `store`, with the client's code as the reason: never the URL).
 *
 * @example
 * const store = guarded(createPostgresStore(sql, options), 'db:5432/sendbox')
 */
export function guarded<T extends object>(
  target: T,
  store: string,
  /** Methods left as they are (a synchronous one stays synchronous). */
  keep: ReadonlyArray<keyof T> = [],
): T {
  const out = { ...target } as Record<string, unknown>
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function' || keep.includes(key as keyof T)) continue
    out[key] = async (...args: unknown[]) => {
      try {
        return await value.apply(target, args)
      } catch (error) {
        if (!isUnreachable(error)) throw error
        const code = String((error as { code: string }).code)
        throw new StoreUnavailableError(store, code, { cause: error })
      }
    }
  }
  return out as T
}
