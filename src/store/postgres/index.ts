import type { LogHealth, MessageStore } from '../types.js'
import { StoreOpenError } from './errors.js'
import { openChannel } from './channel.js'
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
 * written by a newer sendbox. The client is loaded here, so a sandbox on the JSON Lines log
 * never loads it.
 *
 * @example
 * const store = await openPostgresStore({ url: 'postgres://sendbox@db:5432/sendbox', maxMessages: 5000 })
 */
export async function openPostgresStore(options: OpenPostgresOptions): Promise<MessageStore> {
  const name = storeName(options.url)
  const { default: postgres } = await import('postgres')
  const sql = postgres(options.url, {
    max: 10,
    // Notices ("extension exists, skipping") are not the user's business.
    onnotice: () => {},
    connect_timeout: 10,
    // Between attempts to reconnect after a failure the client waits 3^n / 100 s by default, n
    // counting the failures of the whole pool: with the work runner's polls and the reads' retries
    // during an outage, n reached 6 and every request then waited up to 7 s, for its 503 while the
    // database was down and for its answer once it was back (test/pg/outage.test.ts: 4.4 s for a
    // read, 7.3 s for the health check, 6.9 s to recover). At most half a second instead.
    backoff: (failures: number) => Math.min(0.05 * 2 ** failures, 0.5),
    // No array-type lookup at each connect: the client runs it unawaited, so a database that goes
    // away mid-connect left an unhandled rejection (seen in test/pg/outage.test.ts). The one array
    // sendbox writes is given as a literal of text[] (filter.ts).
    fetch_types: false,
  })
  try {
    await sql`SELECT 1`
  } catch (error) {
    await sql.end({ timeout: 0 })
    throw new StoreOpenError(
      'store_unreachable',
      name,
      `Cannot reach the PostgreSQL store ${name}: ${reasonOf(error, options.url)}. Check that the database runs and accepts this user, and the URL given to --store.`,
    )
  }
  let formats: { from: number; to: number }
  try {
    formats = await migrate(sql, name)
  } catch (error) {
    await sql.end({ timeout: 0 })
    if (error instanceof StoreOpenError) throw error
    throw new StoreOpenError(
      'store_failed',
      name,
      `Cannot prepare the PostgreSQL store ${name}: ${reasonOf(error, options.url)}.`,
    )
  }
  if (formats.from !== formats.to) options.info?.(upgradeLine(name, formats.from, formats.to))
  const channel = await openChannel(sql)
  return createPostgresStore(sql, {
    name,
    maxMessages: options.maxMessages,
    channel,
    ...(options.onHealth ? { onHealth: options.onHealth } : {}),
  })
}
