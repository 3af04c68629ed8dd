import type { H3Event } from 'h3'

/**
 * One console line per request, when logs are on (the CLI):
 *
 *   POST /messages 201 welcome → ada@example.com (3 ms)
 *   POST /messages 422 missing_variables welcome → ada@example.com (2 ms)
 *   POST /messages 403 sandbox_token_required (1 ms)
 *   GET /_sandbox/api/messages/wait?to=ada%40example.com 404 wait_timeout (5002 ms)
 *
 *   GET /_sandbox/app.js 403 cross_origin_forbidden: Origin "http://mail.test:8080" is not this server's own, … (1 ms)
 *
 * Method, path, status, error code, template and recipients; never a header, a body or a token.
 * Routes add what they know with `noteRequest`; the line is written when the response is done.
 * The inbox's own reads (its page, lists, previews, the event stream) are left out, so an open
 * inbox does not flood the console; waits and every write are in, and so is every request the
 * guard refused for its Host or Origin, with what it compared: behind a proxy that rewrites the
 * Host, the inbox's own script is refused, and that line is the only trace of why.
 */

export interface RequestNote {
  code?: string
  template?: string
  /** Recipients' addresses. */
  to?: string[]
  /** What the guard compared when it refused the request (its Host, its Origin): never a secret. */
  refused?: string
}

const NOTE = 'sendboxRequest'

/** Adds what a route knows about its request to its log line. */
export function noteRequest(event: H3Event, note: RequestNote): void {
  const context = event.context as Record<string, unknown>
  context[NOTE] = { ...(context[NOTE] as RequestNote | undefined), ...note }
}

/** Like `noteRequest`, for what is not noted yet: what a failure knows must not replace what the route learnt. */
export function noteRequestUnlessKnown(event: H3Event, note: RequestNote): void {
  const context = event.context as Record<string, unknown>
  context[NOTE] = { ...note, ...(context[NOTE] as RequestNote | undefined) }
}

/** Whether a request gets a line: everything but the inbox's reads. */
export function isLogged(method: string, path: string): boolean {
  if (!path.startsWith('/_sandbox')) return true
  if (path === '/_sandbox/api/messages/wait') return true
  if (method === 'GET' || method === 'HEAD') return false
  // The styling view posts a render on every keystroke.
  return !(
    path === '/_sandbox/api/previews' || /^\/_sandbox\/api\/templates\/[^/]+\/render$/.test(path)
  )
}

/** A query string with the value of anything named like a token replaced. */
function safeSearch(search: string): string {
  if (!search) return ''
  const params = new URLSearchParams(search)
  for (const key of [...params.keys()])
    if (/token|auth|secret|password/i.test(key)) params.set(key, '…')
  const shown = params.toString()
  return shown ? `?${shown.length > 200 ? `${shown.slice(0, 199)}…` : shown}` : ''
}

function recipients(to: string[]): string {
  const shown = to.slice(0, 3).join(', ')
  return to.length > 3 ? `${shown} +${to.length - 3} more` : shown
}

/**
 * The line for one finished request.
 *
 * @example
 * formatRequestLine('POST', '/messages', '', 201, { template: 'welcome', to: ['ada@example.com'] }, 3)
 * // 'POST /messages 201 welcome → ada@example.com (3 ms)'
 */
export function formatRequestLine(
  method: string,
  path: string,
  search: string,
  status: number,
  note: RequestNote,
  ms: number,
): string {
  const parts = [method, `${path}${safeSearch(search)}`, String(status)]
  if (status >= 400 && note.code) parts.push(note.refused ? `${note.code}:` : note.code)
  if (note.refused) parts.push(note.refused)
  if (note.template) parts.push(note.template)
  if (note.to?.length) parts.push(`→ ${recipients(note.to)}`)
  parts.push(`(${ms} ms)`)
  return parts.join(' ')
}

/**
 * The `onRequest` hook that writes a request's line once its response has been sent (or the
 * client went away).
 *
 * @example
 * new H3({ onRequest: requestLogger((line) => logger.info(line)) })
 */
export function requestLogger(write: (line: string) => void): (event: H3Event) => void {
  return (event) => {
    const method = event.req.method
    const { pathname, search } = event.url
    const logged = isLogged(method, pathname)
    const res = event.runtime?.node?.res
    if (!res) return
    const started = performance.now()
    let done = false
    const finish = () => {
      if (done) return
      done = true
      const note =
        ((event.context as Record<string, unknown>)[NOTE] as RequestNote | undefined) ?? {}
      // The inbox's reads are left out, unless the guard refused one.
      if (!logged && !note.refused) return
      write(
        formatRequestLine(
          method,
          pathname,
          search,
          res.statusCode,
          note,
          Math.round(performance.now() - started),
        ),
      )
    }
    res.once('finish', finish)
    res.once('close', finish)
  }
}
