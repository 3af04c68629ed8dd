import pg from 'pg'
import { StoreUnavailableError } from '../errors.js'

/** Codes (Node's net, and ours for the client's errors below) that mean the database could not be reached. */
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
])

/**
 * node-postgres says a connection was lost or could not be made in words, not codes (pg 8.23,
 * lib/client.js and pg-pool): each message is given a code here, the reason a 503 names.
 */
const CLIENT_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/timeout|timed out/i, 'CONNECT_TIMEOUT'],
  [/terminated unexpectedly|encountered a connection error/i, 'CONNECTION_CLOSED'],
  [/^Connection terminated$|closed and is not queryable|after calling end/i, 'CONNECTION_ENDED'],
]

/**
 * An error's code: PostgreSQL's SQLSTATE, Node's network code, or the one CLIENT_MESSAGES gives
 * a client error; undefined for anything else.
 *
 * @example
 * codeOf(new Error('Connection terminated unexpectedly')) // 'CONNECTION_CLOSED'
 */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string') return code
  if (!(error instanceof Error)) return undefined
  return CLIENT_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1]
}

/**
 * Whether an error means the database is away rather than the query wrong: the network codes,
 * SQLSTATE class 08 (connection exception) and 57P01-57P03 (shut down, crashed, starting up).
 */
export function isUnreachable(error: unknown): boolean {
  const code = codeOf(error)
  if (code === undefined) return false
  return NETWORK.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code)
}

/**
 * Whether PostgreSQL refused a statement (a constraint, a value it cannot take): nothing of it was
 * committed, so each part of a batched statement can be tried again alone (createBatcher's
 * `eachAlone`). Not a lost connection: the statement may have committed before its answer was lost.
 */
export const isRefused = (error: unknown): boolean =>
  error instanceof pg.DatabaseError && !isUnreachable(error)

/**
 * What a connection that was open and got dropped fails with: a fresh one may answer. Not a
 * refused or timed-out connect: the database is down, and trying again only adds queries.
 */
const DROPPED: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED',
  'ECONNRESET',
  'EPIPE',
  '57P01',
  '57P02',
])

/** How long a read keeps trying past dropped connections before it is `store_unavailable`. */
const READ_RETRY_MS = 1000

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The same object, each method's failure to reach the database turned into
 * `StoreUnavailableError` (naming `store`, with the client's code as the reason: never the URL).
 *
 * The methods named in `reads` are tried again first: a connection the database dropped (a
 * restart, an administrator's 57P01) fails the queries it was carrying, and a fresh connection
 * would answer them. Once is not enough: with ten reads under way when pg_terminate_backend
 * ended the pool's connections, a read's tries failed (CONNECTION_CLOSED, ECONNRESET, then the
 * server's 57P01 on the same connection) for up to ~100 ms while the pool reconnected, up to
 * five times in a row (measured with postgres.js 3.4). So a read tries again, 5 ms later and twice as long
 * each time, for up to READ_RETRY_MS, while the failure is a dropped connection (DROPPED); a
 * database that refuses connections makes it `store_unavailable` at once, as before.
 * Changes are not tried again: one may have committed before its answer was lost.
 *
 * @example
 * const store = guarded(createPostgresStore(pool, options), 'db:5432/sendbox', ['health'], ['get', 'list'])
 */
export function guarded<T extends object>(
  target: T,
  store: string,
  /** Methods left as they are (a synchronous one stays synchronous). */
  keep: ReadonlyArray<keyof T> = [],
  /** Methods that only read, tried again while their connections are being replaced. */
  reads: ReadonlyArray<keyof T> = [],
  /** Told what each call found: null when the database answered, the failure when it did not. */
  observe: (failure: StoreUnavailableError | null) => void = () => {},
): T {
  const out = { ...target } as Record<string, unknown>
  for (const [key, value] of Object.entries(target)) {
    if (typeof value !== 'function' || keep.includes(key as keyof T)) continue
    const budget = reads.includes(key as keyof T) ? READ_RETRY_MS : 0
    out[key] = async (...args: unknown[]) => {
      const began = Date.now()
      for (let wait = 5; ; wait *= 2) {
        try {
          const result = await value.apply(target, args)
          observe(null)
          return result
        } catch (error) {
          if (!isUnreachable(error)) {
            // A statement PostgreSQL refused: it answered. Anything else says nothing of it.
            if (isRefused(error)) observe(null)
            throw error
          }
          const code = String(codeOf(error))
          const dropped = DROPPED.has(code)
          if (dropped && Date.now() - began + wait <= budget) {
            await pause(wait)
            continue
          }
          const failure = new StoreUnavailableError(store, code, { cause: error })
          observe(failure)
          throw failure
        }
      }
    }
  }
  return out as T
}
