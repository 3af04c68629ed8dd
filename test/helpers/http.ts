import { request } from 'node:http'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  /** The body parsed as JSON, or undefined. */
  json: unknown
}

/**
 * One HTTP/1.1 request with exactly these headers (fetch would not let a test set Host, and adds
 * Sec-Fetch-Mode): what a browser, a rebinding page or curl sends, byte for byte.
 */
export function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        headers: { connection: 'close', ...init.headers },
        setHost: !Object.keys(init.headers ?? {}).some((h) => h.toLowerCase() === 'host'),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8')
          let json: unknown
          try {
            json = JSON.parse(body)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json })
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(init.body)
  })
}

/** The error code of a contract-shaped JSON error answer. */
export const codeOf = (response: RawResponse) =>
  (response.json as { error?: { code?: string } } | undefined)?.error?.code

/**
 * A response's JSON body, loosely typed: a test reads the few fields it asserts on and `expect`
 * checks them at run time, so a declared shape would only repeat the assertion (the routes'
 * answers are typed where they are built). `response.json()` is `unknown` under Node's types.
 *
 * @example
 * const body = await jsonOf(fetch(`${url}/_sandbox/api/health`))
 * expect(body.messages).toBe(0)
 */
export async function jsonOf(response: Response | Promise<Response>): Promise<any> {
  return (await response).json()
}
