import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  MessageNotFoundError,
  RecipientNotFoundError,
  UrlNotInMessageError,
} from '../core/delivery.js'
import type { Fault, FaultInput } from '../core/faults.js'
import {
  ShuttingDownError,
  WAIT_DEFAULT_MS,
  WaitTimeoutError,
  type WaitOptions,
} from '../core/wait-types.js'
import type { MessageFilter, ReadRecord, Suppression, SuppressionFilter } from '../store/types.js'
import { createInbox, type MessageSource } from './inbox.js'
import type { SendboxClient } from './types.js'

/**
 * `connectSendbox` (docs/ci.md#the-programmatic-api): the programmatic API over the inspector's HTTP API, for a
 * sandbox started by the CLI or in a container.
 */

export const DEFAULT_SENDBOX_URL = 'http://127.0.0.1:5025'

/** The sandbox did not answer: nothing listens at the URL, or it is not sendbox. */
export class SendboxUnreachableError extends Error {
  override name = 'SendboxUnreachableError'
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(unreachable(url, cause), { cause })
  }
}

/** What OpenSSL says of a certificate whose issuer this process does not trust. */
const UNTRUSTED_CERTIFICATE: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
])

/**
 * Why `url` did not answer, and what to do. A sandbox that answers over HTTPS with sendbox's
 * local CA, which this process was not started trusting, is there: the fix is the CA, not
 * starting one (Node reads NODE_EXTRA_CA_CERTS once, at start, so it names the variable).
 *
 * @example unreachable('http://127.0.0.1:5025', new Error('connect ECONNREFUSED 127.0.0.1:5025'))
 */
function unreachable(url: string, cause: unknown): string {
  const reason = (cause as Error)?.message ?? String(cause)
  if (UNTRUSTED_CERTIFICATE.has((cause as NodeJS.ErrnoException)?.code ?? '')) {
    const here = join(process.cwd(), '.sendbox', 'ca.pem')
    const ca = existsSync(here)
      ? here
      : '<the CA file sendbox printed at start: .sendbox/ca.pem in the folder it runs in>'
    return `The sandbox at ${url} answers over HTTPS with a certificate this process does not trust (${reason}). Start this process with NODE_EXTRA_CA_CERTS=${ca} (docs/https.md in the sendbox package).`
  }
  return `No sendbox answers at ${url} (${reason}). Start one with \`npx sendbox\`, or set SENDBOX_URL to where it runs.`
}

/** An inspector error answer, for what no typed error covers. */
export class SendboxRequestError extends Error {
  override name = 'SendboxRequestError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message)
  }
}

type Query = Record<string, string | number | undefined>

function queryOf(filter: object): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(filter))
    if (value !== undefined && value !== null && name !== 'signal') params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** How `connectSendbox` reaches a sandbox. */
export interface ConnectOptions {
  /**
   * The token the inspector takes when the sandbox has projects (docs/team.md#projects-each-teams-mail-behind-its-own-tokens): your
   * project's, or an admin's. Default `SENDBOX_TOKEN`; without projects none is needed.
   */
  token?: string
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: unknown[] }
}

/** One request to the inspector: its answer, or the error it is (`SendboxRequestError`, unreachable). */
type InspectorRequest = <T>(
  method: string,
  path: string,
  options?: { query?: object; body?: unknown; signal?: AbortSignal },
) => Promise<{ status: number; body: T }>

const API = '/_sandbox/api'

/**
 * The sandbox's base URL, without a trailing slash; a TypeError naming the argument when it is
 * no URL.
 *
 * @example baseOf('http://127.0.0.1:5025/') // 'http://127.0.0.1:5025'
 */
function baseOf(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '')
  } catch {
    throw new TypeError(
      `connectSendbox(): ${JSON.stringify(url)} is not a URL; give the sandbox's base URL, e.g. ${DEFAULT_SENDBOX_URL}.`,
    )
  }
}

/**
 * Requests to the inspector of the sandbox at `root`, each ended by `closing` (the client's
 * close) or its own signal. No answer is `SendboxUnreachableError`; an error answer is
 * `SendboxRequestError` with the inspector's code.
 *
 * @example const request = inspectorRequests('http://127.0.0.1:5025', {}, new AbortController().signal)
 */
function inspectorRequests(
  root: string,
  authorization: Record<string, string>,
  closing: AbortSignal,
): InspectorRequest {
  return async (method, path, options = {}) => {
    const signals = [closing, ...(options.signal ? [options.signal] : [])]
    let response: Response
    try {
      response = await fetch(`${root}${path}${queryOf(options.query ?? {})}`, {
        method,
        signal: AbortSignal.any(signals),
        ...(options.body !== undefined
          ? {
              headers: { 'content-type': 'application/json', ...authorization },
              body: JSON.stringify(options.body),
            }
          : { headers: authorization }),
      })
    } catch (error) {
      if (signals.some((s) => s.aborted)) throw error
      throw new SendboxUnreachableError(root, (error as Error).cause ?? error)
    }
    return answerOf(root, response)
  }
}

/** An inspector's answer: its JSON body, or the error it says. */
async function answerOf<T>(root: string, response: Response): Promise<{ status: number; body: T }> {
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    throw new SendboxUnreachableError(root, new Error(`HTTP ${response.status}, not JSON`))
  }
  if (response.ok) return { status: response.status, body: body as T }
  const error = (body as ErrorBody)?.error ?? {}
  throw new SendboxRequestError(
    response.status,
    error.code ?? 'unknown',
    error.message ?? `HTTP ${response.status}`,
    error.details ?? [],
  )
}

/** Every match unless `limit` is given, as in-process: the inspector pages at most 1000. */
async function allMessages(
  request: InspectorRequest,
  filter: MessageFilter = {},
): Promise<ReadRecord[]> {
  const wanted = filter.limit ?? Number.POSITIVE_INFINITY
  const out: ReadRecord[] = []
  let offset = filter.offset ?? 0
  for (;;) {
    const limit = Math.min(1000, wanted - out.length)
    const { body } = await request<{ messages: ReadRecord[]; total: number }>(
      'GET',
      `${API}/messages`,
      { query: { ...filter, limit, offset } },
    )
    out.push(...body.messages)
    offset += body.messages.length
    if (body.messages.length < limit || out.length >= wanted) return out
  }
}

async function messagePage(request: InspectorRequest, filter: MessageFilter) {
  const { body } = await request<{ messages: ReadRecord[]; cursor: string }>(
    'GET',
    `${API}/messages`,
    { query: filter },
  )
  return { messages: body.messages, cursor: body.cursor }
}

/**
 * `after: 'now'` over HTTP: the call's moment on this machine's clock, sent as `since`. The
 * server's `after=now` would count from the moment the wait's request arrives, which a send
 * made after the call but on a faster path (the app's kept-alive connection) beats. A sandbox
 * on another machine needs the clocks in step; `after: await sandbox.cursor()` needs none.
 */
const now = () => ({ since: new Date().toISOString() })

/** GET …/messages/wait, its errors as the in-process wait throws them. */
async function waitOverHttp(request: InspectorRequest, options: WaitOptions): Promise<ReadRecord> {
  // A wait answers one message: paging means nothing to it, and /wait takes only what it reads.
  const {
    timeout = WAIT_DEFAULT_MS,
    signal,
    limit: _limit,
    offset: _offset,
    after,
    ...rest
  } = options
  const filter = after === 'now' ? { ...rest, ...now() } : after ? { ...rest, after } : rest
  try {
    const query: Query = { ...(filter as Query), timeout }
    return (
      await request<ReadRecord>('GET', `${API}/messages/wait`, {
        query,
        ...(signal ? { signal } : {}),
      })
    ).body
  } catch (error) {
    if (error instanceof SendboxRequestError && error.code === 'wait_timeout') {
      // The server's sentences after its first (earlier matches, rejected sends), without its advice on ?timeout=.
      const hints = error.message
        .replace(/^No message matching .*? arrived within \d+ ms\.\s*/, '')
        .replace(/\s*Send one, or wait longer with \?timeout=.*$/, '')
      throw new WaitTimeoutError(rest, timeout, { hints: hints ? [hints] : [] })
    }
    if (error instanceof SendboxRequestError && error.code === 'shutting_down')
      throw new ShuttingDownError()
    throw error
  }
}

/** What an inbox reads over HTTP. */
function httpSource(request: InspectorRequest): MessageSource {
  return {
    messages: (filter) => allMessages(request, filter),
    page: (filter) => messagePage(request, filter),
    now,
    waitForMessage: (options) => waitOverHttp(request, options),
    async clear(filter) {
      await request('DELETE', `${API}/messages`, { query: filter })
    },
  }
}

async function suppressionsOf(
  request: InspectorRequest,
  filter: SuppressionFilter,
): Promise<Suppression[]> {
  const { body } = await request<{ suppressions: Suppression[] }>('GET', `${API}/suppressions`, {
    query: filter,
  })
  return body.suppressions
}

/** `sandbox.unsuppress` over HTTP: the list first (what it resolves with), then the delete. */
async function unsuppressOverHttp(
  request: InspectorRequest,
  filter: SuppressionFilter,
): Promise<Suppression[]> {
  const suppressions = await suppressionsOf(request, filter)
  const project = filter.project ? { project: filter.project } : {}
  if (filter.address === undefined)
    await request('DELETE', `${API}/suppressions`, { query: project })
  else if (suppressions.length)
    await request('DELETE', `${API}/suppressions/${encodeURIComponent(filter.address)}`, {
      query: project,
    })
  return suppressions
}

/** `sandbox.fail` over HTTP: an invalid fault is a TypeError, as in-process. */
async function failOverHttp(request: InspectorRequest, fault: FaultInput): Promise<Fault> {
  try {
    return (await request<Fault>('POST', `${API}/faults`, { body: fault })).body
  } catch (error) {
    if (error instanceof SendboxRequestError && error.status === 422)
      throw new TypeError(`sandbox.fail(): the fault is not valid: ${error.message}`)
    throw error
  }
}

/**
 * A client of the sandbox at `url` (default `SENDBOX_URL`, then http://127.0.0.1:5025). Nothing
 * is asked of the server until a method is called; `close()` ends the client's own pending
 * requests and leaves the sandbox running.
 *
 * @example
 * const sandbox = connectSendbox()          // SENDBOX_URL, or http://127.0.0.1:5025
 * const inbox = sandbox.inbox()
 * await signUp(inbox.address)
 * const code = await inbox.waitForCode()
 *
 * @example
 * // A shared sandbox with projects: the inspector takes your project's token (default SENDBOX_TOKEN).
 * const sandbox = connectSendbox('https://mail.staging.acme.test', { token: 'sandbox_acme_ci' })
 */
export function connectSendbox(
  url: string = process.env.SENDBOX_URL || DEFAULT_SENDBOX_URL,
  options: ConnectOptions = {},
): SendboxClient {
  const token = options.token ?? (process.env.SENDBOX_TOKEN || undefined)
  const authorization: Record<string, string> = token ? { authorization: `token ${token}` } : {}
  const root = baseOf(url)
  const closing = new AbortController()
  const request = inspectorRequests(root, authorization, closing.signal)
  const source = httpSource(request)
  return {
    url: root,
    inboxUrl: `${root}/_sandbox/`,
    // The token it reads with, so that an application configured from it is accepted too.
    token: token ?? 'sandbox_connected',
    messages: source.messages,
    waitForMessage: (filter = {}) => source.waitForMessage(filter),
    cursor: async () =>
      (await source.page({ limit: 1, fields: 'summary' } as MessageFilter)).cursor,
    async rejections(filter = {}) {
      const { body } = await request<{ rejections: [] }>('GET', `${API}/rejections`, {
        query: filter,
      })
      return body.rejections
    },
    clear: (filter = {}) => source.clear(filter),
    fail: (fault) => failOverHttp(request, fault),
    async simulate(id, event) {
      try {
        const path = `${API}/messages/${encodeURIComponent(id)}/events`
        return (await request<ReadRecord>('POST', path, { body: event })).body
      } catch (error) {
        throw simulateError(id, event, error)
      }
    },
    async webhooks(filter = {}) {
      const { url, ...query } = filter
      const { body } = await request<{ deliveries: Array<{ url: string }> }>(
        'GET',
        `${API}/webhooks`,
        { query },
      )
      return body.deliveries.filter((d) => url === undefined || d.url === url) as never
    },
    suppressions: (filter = {}) => suppressionsOf(request, filter),
    unsuppress: (filter = {}) => unsuppressOverHttp(request, filter),
    inbox: (options) => createInbox(source, options),
    async close() {
      closing.abort(new Error('connectSendbox: the client was closed.'))
    },
  }
}

/** An inspector error of POST …/events as the error `sandbox.simulate` throws in-process. */
function simulateError(id: string, event: { url?: string }, error: unknown): unknown {
  if (!(error instanceof SendboxRequestError)) return error
  const detail = (error.details[0] ?? {}) as { recipients?: string[]; links?: string[] }
  if (error.code === 'message_not_found') return new MessageNotFoundError(id)
  if (error.code === 'recipient_not_found')
    return new RecipientNotFoundError(
      (event as { recipient?: string }).recipient ?? '',
      detail.recipients ?? [],
    )
  if (error.code === 'url_not_in_message')
    return new UrlNotInMessageError(event.url ?? '', detail.links ?? [])
  if (error.status === 422 || error.status === 400)
    return new TypeError(`sandbox.simulate(): the event is not valid: ${error.message}`)
  return error
}
