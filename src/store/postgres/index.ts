import type { LogHealth, MessageStore } from '../types.js'
import { StoreOpenError } from './errors.js'
import { openChannel } from './channel.js'
import { openPool, transaction } from './client.js'
import { migrate } from './schema.js'
import { createPostgresStore } from './store.js'
import { storeName } from './url.js'

export { StoreOpenError } from './errors.js'
export { storeName, isPostgresUrl } from './url.js'

export interface OpenPostgresOptions {
  /** `postgres://user:password@host:port/database` (`sslmode` honoured). */
  url: string
  maxMessages: number
  /** Told when the database stops answering, and when it answers again (`unavailable`, `ok`). */
  onHealth?: (health: LogHealth) => void
  /** Told, in one line, when this start created the tables or upgraded their format. */
  info?: (message: string) => void
}

/** A reason from the client, with the URL's password taken out wherever it shows. */
function reasonOf(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error)
  let password = ''
  try {
    password = decodeURIComponent(new URL(url).password)
  } catch {
    // An unreadable URL has no password to hide.
  }
  return password ? message.split(password).join('***') : message
}

/** What a start that changed the database's format says (docs/team.md#upgrades). */
const upgradeLine = (name: string, from: number, to: number): string =>
  from === 0
    ? `Created sendbox's tables in the PostgreSQL store ${name} (format ${to}).`
    : `Upgraded the PostgreSQL store ${name} from format ${from} to format ${to}.`

/**
 * Connects, creates or upgrades the schema, and answers the store. Throws `StoreOpenError`
 * (naming `host:port/database`, never the password) when the database cannot be reached or was
 * written by a newer sendbox. This module is loaded with --store alone (server/index.ts imports
 * it when the store is a URL), so a sandbox on the JSON Lines log never loads the client.
 *
 * @example
 * const store = await openPostgresStore({ url: 'postgres://sendbox@db:5432/sendbox', maxMessages: 5000 })
 */
export async function openPostgresStore(options: OpenPostgresOptions): Promise<MessageStore> {
  const name = storeName(options.url)
  const pool = openPool(options.url)
  let formats: { from: number; to: number }
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end()
    throw new StoreOpenError(
      'store_unreachable',
      name,
      `Cannot reach the PostgreSQL store ${name}: ${reasonOf(error, options.url)}. Check that the database runs and accepts this user, and the URL given to --store.`,
    )
  }
  try {
    formats = await transaction(pool, (tx) => migrate(tx, name))
  } catch (error) {
    await pool.end()
    if (error instanceof StoreOpenError) throw error
    throw new StoreOpenError(
      'store_failed',
      name,
      `Cannot prepare the PostgreSQL store ${name}: ${reasonOf(error, options.url)}.`,
    )
  }
  if (formats.from !== formats.to) options.info?.(upgradeLine(name, formats.from, formats.to))
  const channel = await openChannel(pool, options.url)
  return createPostgresStore(pool, {
    name,
    maxMessages: options.maxMessages,
    channel,
    ...(options.onHealth ? { onHealth: options.onHealth } : {}),
  })
}
