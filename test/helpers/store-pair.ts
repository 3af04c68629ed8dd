import type { TestSandbox } from './sandbox.js'

/**
 * Two sandboxes started alike, one on the JSON Lines log and one on PostgreSQL, driven over HTTP
 * with the same requests, and their answers made comparable: what each store may legitimately
 * answer its own way (ids, times, cursors) is replaced by what it stands for.
 */

export type Side = 'json' | 'pg'
export const SIDES: readonly Side[] = ['json', 'pg']

/** One answer, as compared: the status, the body (normalised) and the headers a client reads. */
export interface Answer {
  status: number
  body: unknown
  retryAfter?: string
  location?: string
}

/** What a side's answers are normalised with: its message ids by label, its cursors. */
export interface SideState {
  /** `msg_…` → `m3`, the label of the third send that was stored (the same on both sides). */
  labels: Map<string, string>
}

const MESSAGE_ID = /msg_[0-9A-HJKMNP-TV-Z]{26}/g
const REJECTION_ID = /rej_[0-9A-HJKMNP-TV-Z]{26}/g
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/

/**
 * A body with the store-specific parts replaced, each for a reason that makes it legitimate:
 * - message ids (`msg_…`) are new ULIDs on each side: a send's id becomes the label of that send
 *   (`m3`) wherever it occurs (a record, a suppression's `messageId`, an error's sentence), so a
 *   record under the wrong id still shows;
 * - rejection ids (`rej_…`) likewise, but no request names one: `rej_*` (their order is compared);
 * - times (`createdAt`, an event's `at`, a suppression's `createdAt`): the two sides stored them
 *   a few milliseconds apart;
 * - a list's `cursor` is opaque and each store's own (a count of records on the log, a sequence
 *   on PostgreSQL, docs/inspector.md#cursors-waiting-for-what-an-action-sends): the runner keeps
 *   each side's and hands it back to that side, so what a cursor selects is compared instead;
 * - a fault's `id` is its table's (`fault_1` in memory, a sequence in the database), and no
 *   request names one.
 */
export function normalise(value: unknown, state: SideState, key = ''): unknown {
  if (typeof value === 'string') {
    if (key === 'cursor') return '<cursor>'
    if (ISO_TIME.test(value)) return '<time>'
    return value
      .replace(MESSAGE_ID, (id) => state.labels.get(id) ?? 'msg_<unknown>')
      .replace(REJECTION_ID, 'rej_*')
  }
  if (Array.isArray(value)) return value.map((item) => normalise(item, state))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      if (k === 'id' && typeof v === 'number') out[k] = '<fault>'
      else if (k === 'id' && typeof v === 'string' && /^fault_|^\d+$/.test(v)) out[k] = '<fault>'
      else out[k] = normalise(v, state, k)
    }
    return out
  }
  return value
}

/** One request, as the runner makes it on each side (paths may name a side's own ids). */
export interface Call {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  token?: string
  json?: unknown
  headers?: Record<string, string>
}

/**
 * Makes the call on a sandbox and reads its answer (a body that is not JSON is kept as text).
 *
 * @example
 * const answer = await call(sandbox, { method: 'GET', path: '/_sandbox/api/health', token })
 */
export async function call(
  sandbox: TestSandbox,
  request: Call,
): Promise<Answer & { raw: unknown }> {
  const headers: Record<string, string> = { ...request.headers }
  if (request.token) headers.authorization = `token ${request.token}`
  const response = await sandbox.api(request.path, {
    method: request.method,
    auth: false,
    headers,
    ...(request.json === undefined ? {} : { json: request.json }),
  })
  const text = await response.text()
  let raw: unknown = text
  try {
    raw = text ? JSON.parse(text) : null
  } catch {
    // Not JSON (an HTML or text answer): compared as it is.
  }
  const retryAfter = response.headers.get('retry-after')
  const location = response.headers.get('location')
  return {
    status: response.status,
    raw,
    body: raw,
    ...(retryAfter === null ? {} : { retryAfter }),
    ...(location === null ? {} : { location }),
  }
}

/**
 * Resolves once `settled` says so of the value `read` answers; fails after `timeoutMs`. What a
 * delivery does happens after the 201, on its own: the model waits on it, not a fixed time.
 */
export async function until<T>(
  read: () => Promise<T>,
  settled: (value: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (settled(value)) return value
    if (Date.now() > end)
      throw new Error(`not settled within ${timeoutMs} ms: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
