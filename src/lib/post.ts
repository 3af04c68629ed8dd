import http from 'node:http'
import https from 'node:https'

/**
 * One small HTTP POST client for outgoing webhooks. node:http with a keep-alive agent per
 * origin costs a fraction of `fetch` per request, which matters when every send posts two or
 * more events; and it lets a delivery be cut off at a hard deadline and report what it got.
 */

export interface PostResult {
  /** null when no response came (refused, reset, timed out). */
  status: number | null
  /** The start of the response body (at most `bodyLimit` characters). */
  body: string
  /** Why there was no response, or null. */
  error: string | null
  durationMs: number
}

export interface PostOptions {
  headers: Record<string, string>
  /** The whole attempt, connection to last byte, must fit in this. */
  timeoutMs: number
  /** How much of the response body to keep. */
  bodyLimit: number
  agent?: http.Agent
}

export interface Poster {
  /** Never rejects: a failure is a result with `error`. */
  post(url: string, body: string, options: PostOptions): { done: Promise<PostResult>; abort(): void }
  /** Closes the keep-alive sockets. */
  close(): void
}

/**
 * A client with one keep-alive agent per protocol, at most `maxSockets` connections per origin.
 *
 * @example
 * const client = createPoster({ maxSockets: 16 })
 * const { done } = client.post('http://127.0.0.1:4000/hooks', '{"a":1}', { headers: { 'content-type': 'application/json' }, timeoutMs: 5000, bodyLimit: 1024 })
 * const result = await done // { status: 200, body: 'ok', error: null, durationMs: 3.1 }
 */
export function createPoster({ maxSockets }: { maxSockets: number }): Poster {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets }),
  }
  return {
    post(url, body, options) {
      const started = performance.now()
      let request: http.ClientRequest | null = null
      let finish: (result: Omit<PostResult, 'durationMs'>) => void = () => {}
      const done = new Promise<PostResult>((resolve) => {
        let settled = false
        finish = (result) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          resolve({ ...result, durationMs: Math.round((performance.now() - started) * 10) / 10 })
        }
        const timer = setTimeout(() => {
          finish({ status: null, body: '', error: `no response within ${options.timeoutMs} ms (timed out)` })
          request?.destroy()
        }, options.timeoutMs)
        let target: URL
        try {
          target = new URL(url)
        } catch {
          return finish({ status: null, body: '', error: `not a URL: ${url}` })
        }
        const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:']
        const transport = target.protocol === 'https:' ? https : http
        const payload = Buffer.from(body, 'utf8')
        request = transport.request(target, { method: 'POST', agent, headers: { ...options.headers, 'content-length': String(payload.length) } }, (response) => {
          let kept = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => {
            if (kept.length < options.bodyLimit) kept += chunk.slice(0, options.bodyLimit - kept.length)
          })
          response.on('end', () => finish({ status: response.statusCode ?? null, body: kept, error: null }))
          response.on('error', (error) => finish({ status: response.statusCode ?? null, body: kept, error: describe(error) }))
          response.on('aborted', () => finish({ status: response.statusCode ?? null, body: kept, error: 'the response was cut off' }))
        })
        request.on('error', (error) => finish({ status: null, body: '', error: describe(error) }))
        request.end(payload)
      })
      return {
        done,
        abort() {
          finish({ status: null, body: '', error: 'aborted: sendbox is closing' })
          request?.destroy()
        },
      }
    },
    close() {
      agents['http:'].destroy()
      agents['https:'].destroy()
    },
  }
}

/** `connect ECONNREFUSED 127.0.0.1:9` → a sentence a person can act on. */
function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ECONNREFUSED') return `connection refused (${error.message.replace(/^connect /, '')}): is the receiver running?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${error.message})`
  if (code === 'ECONNRESET') return 'the connection was reset by the receiver'
  return error.message || String(error)
}
