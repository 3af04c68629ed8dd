import * as v from 'valibot'
import { count } from '../http/components.js'
import { described } from '../lib/schema.js'
import type { AppContext } from '../http/context.js'
import type { LogHealth } from '../store/types.js'
import { isStoreUnavailable } from '../store/index.js'
import { defineOperation } from '../http/define.js'
import { PUBLIC_ACCESS, type Viewer } from '../http/viewer.js'
import { HEALTH_PATH } from './health-path.js'

/** The store's kind and format, in every health answer (docs/team.md#upgrades). */
const STORE_FORMAT = v.pipe(
  v.object({
    kind: described(v.picklist(['log', 'postgres']), 'The JSON Lines log, or PostgreSQL.'),
    format: described(
      v.number(),
      "The number of the store's format: the log file's version, or the database's schema.",
      [5],
    ),
  }),
  v.description(
    'Which store the sandbox is on, and its format: every process of one sandbox runs the same.',
  ),
)

/**
 * `GET /_sandbox/api/health`, in a module of its own: a start answers it with a small app of
 * this route alone while the whole app loads (src/server/deferred-app.ts).
 */
export const healthOperation = defineOperation({
  method: 'GET',
  path: HEALTH_PATH,
  operationId: 'health',
  tag: 'inspector',
  summary: 'Liveness and counts.',
  description:
    'Answers 200 while the store answers, and 503 with `"status": "unavailable"` while it cannot be reached (what a load balancer checks), whoever asks. `subscribers` counts open event streams and pending waits (a leak shows up there); `auth` says which tokens a client can show in an example. With --projects it answers without a token too, and then says only `status`, `version` and `store`; with a project token, `messages`, `dropped` and `bytes` are that project alone, with an admin token the whole sandbox.',
  security: PUBLIC_ACCESS,
  success: {
    status: 200,
    description: 'Up.',
    schema: v.union([
      v.object({
        status: v.literal('ok'),
        version: described(v.string(), "sendbox's version."),
        store: STORE_FORMAT,
      }),
      v.object({
        status: v.literal('ok'),
        version: described(v.string(), "sendbox's version."),
        store: STORE_FORMAT,
        templates: count('Templates in the templates folder.'),
        messages: count("Messages stored (with a project's token, the project's)."),
        dropped: count(
          "Old messages dropped by --max-messages or --max-log-bytes since the start (with a project's token, the project's own that went).",
        ),
        bytes: count(
          "What the stored messages weigh, against --max-log-bytes (with a project's token, the project's).",
        ),
        subscribers: count('Open event streams and pending waits.'),
        log: described(
          v.picklist(['ok', 'write_failed', 'memory', 'unavailable']),
          'Whether the message log is being written: `ok`; `write_failed` from a failed write (a full disk, lost permissions) until the next write that works, while sends are answered 507 log_write_failed; `memory` with --memory (no file); `unavailable` while a PostgreSQL store cannot be reached (health itself then answers 503). The event stream says each change as a `log` event. See docs/log-faults.md.',
        ),
        logError: v.optional(
          v.pipe(
            v.object({
              file: v.string(),
              reason: described(v.string(), 'The errno code, or `unknown`.', ['ENOSPC']),
              message: described(v.string(), 'What the console said.'),
              since: v.pipe(v.string(), v.isoTimestamp()),
            }),
            v.description('With `log: "write_failed"`: the file, why, and since when.'),
          ),
        ),
        auth: v.object({
          tokenPrefixes: described(v.array(v.string()), 'Accepted token prefixes.', [['sandbox_']]),
          exactTokens: described(
            v.boolean(),
            'Whether only exact tokens (--token) are accepted; they are never shown.',
          ),
          projects: v.optional(
            described(v.boolean(), 'Whether the sandbox has projects (--projects).'),
          ),
        }),
      }),
    ]),
  },
  handler: async ({ ctx, caller }) => {
    try {
      // Without a token (with projects): only that it is up, which takes the store answering:
      // its count is one row on PostgreSQL, where the full answer's bytes read the whole table.
      if (caller === null) {
        await ctx.log.count()
        return { status: 'ok' as const, version: ctx.version, store: ctx.log.format }
      }
      return await healthOf(ctx, caller)
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error
      // What a load balancer checks: this process cannot reach the shared store (docs/team.md).
      // Where the store is and why it failed only to a caller with a token.
      const where = caller === null ? {} : { name: error.store, reason: error.reason }
      return new Response(
        JSON.stringify({
          status: 'unavailable',
          version: ctx.version,
          store: { ...ctx.log.format, ...where },
        }),
        { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '1' } },
      )
    }
  },
})

/** The health answer: counts from the store (a query each on a database). */
async function healthOf(ctx: AppContext, caller: Viewer) {
  // Side by side: on PostgreSQL the count and the sum each read the whole table (at 200,000
  // messages, one after the other took 154 ms on a loaded machine).
  // A project's token reads its own project's figures, which another project's sends never move;
  // an admin (or a sandbox without projects) the sandbox's (docs/team.md).
  const project = caller.project ?? undefined
  const [messages, dropped, bytes] = await Promise.all([
    project === undefined
      ? ctx.log.count()
      : Promise.resolve(ctx.log.list({ project, limit: 1 })).then((p) => p.total),
    ctx.log.dropped(project),
    // What the log holds, against --max-log-bytes.
    ctx.log.bytes(project),
  ])
  return {
    status: 'ok' as const,
    version: ctx.version,
    store: ctx.log.format,
    templates: ctx.catalog.count(),
    messages,
    dropped,
    bytes,
    // Open event streams and pending waits: a leak shows up here.
    subscribers: ctx.events.size(),
    // What a client needs to show a working example; never a token given with --token.
    auth: {
      tokenPrefixes: ctx.config.tokenPrefixes,
      exactTokens: ctx.config.tokens.length > 0 || ctx.config.projects !== null,
      ...(ctx.config.projects ? { projects: true } : {}),
    },
    ...logHealth(ctx.log.health()),
  }
}

/** The log's health as the health answer says it: `log`, and `logError` while writes fail. */
function logHealth({ state, file, reason, message, since }: LogHealth) {
  // A failed write always has them (store/log-health.ts); the fallbacks satisfy the types only.
  return state === 'write_failed'
    ? {
        log: state,
        logError: {
          file: file ?? '',
          reason: reason ?? 'unknown',
          message: message ?? '',
          since: since ?? new Date(0).toISOString(),
        },
      }
    : { log: state }
}
