import { execFile } from 'node:child_process'
import { request } from 'node:https'
import type { IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'

export interface HttpsAnswer {
  status: number
  headers: IncomingMessage['headers']
  body: string
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string
}

/**
 * One request with `node:https`, trusting `ca` (PEM) only: Node's `fetch` takes no CA of its own.
 * Rejects as the TLS handshake does (an unknown issuer, say).
 */
export function httpsRequest(
  url: string,
  options: { ca?: string | null; method?: string; headers?: Record<string, string>; body?: string },
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.ca ? { ca: options.ca } : {}),
        agent: false,
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d) => (body += d))
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, fingerprint }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** Runs a command; resolves with its exit code and output, whatever the code. */
export function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd, timeout: 15_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** Python's ssl with VERIFY_X509_STRICT (3.13's default), trusting `caFile` only: prints status and body. */
export const PYTHON_STRICT = `
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.verify_flags |= ssl.VERIFY_X509_STRICT
with urllib.request.urlopen(sys.argv[2], context=ctx) as r:
    print(r.status, r.read().decode())
`
