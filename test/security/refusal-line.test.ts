import { describe, expect, it } from 'vitest'
import { originComparison } from '../../src/http/guard.js'
import { startCli } from '../helpers/cli.js'
import { codeOf, raw } from '../helpers/http.js'

/**
 * docs/team.md, behind a reverse proxy: a request the guard refuses for its Host or its Origin is
 * one console line saying what was compared (logs on, as `sendbox serve` has them), even when it
 * is one of the inbox's own reads, which are otherwise left out. Behind nginx's usual
 * `proxy_set_header Host $host`, the port is dropped from the Host while the browser's Origin
 * keeps it, and the inbox's script is refused: that line is the only trace of why.
 */

const lines = (stdout: string) => stdout.split('\n').filter((l) => / \(\d+ ms\)$/.test(l))

describe('a refused request is one console line naming what was compared', () => {
  it('the Host, the Origin against the Host (a proxy that dropped the port), Sec-Fetch-Site; no secret', async () => {
    const token = 'sandbox_refusal_line_secret_0123'
    const cli = await startCli([
      '--port',
      '0',
      '--memory',
      '--templates',
      'templates',
      '--allowed-host',
      'mail.test',
    ])
    const port = new URL(cli.url).port
    try {
      // What nginx sends with `proxy_set_header Host $host` for a page at http://mail.test:8080.
      const script = await raw(`${cli.url}/_sandbox/app.js`, {
        headers: {
          host: 'mail.test',
          origin: 'http://mail.test:8080',
          'sec-fetch-site': 'same-origin',
          'sec-fetch-mode': 'cors',
          authorization: `token ${token}`,
        },
      })
      expect(codeOf(script)).toBe('cross_origin_forbidden')
      const rebinding = await raw(`${cli.url}/_sandbox/`, {
        headers: { host: `evil.example:${port}`, authorization: `token ${token}` },
      })
      expect(codeOf(rebinding)).toBe('host_not_allowed')
      const beacon = await raw(`${cli.url}/_sandbox/api/messages`, {
        headers: { host: `127.0.0.1:${port}`, 'sec-fetch-site': 'cross-site' },
      })
      expect(codeOf(beacon)).toBe('cross_origin_forbidden')
      // The inbox's own reads that pass are still left out.
      expect((await raw(`${cli.url}/_sandbox/app.css`)).status).toBe(200)
    } finally {
      const result = await cli.stop()
      const logged = lines(result.stdout)
      expect(logged).toHaveLength(3)
      expect(logged[0]).toContain(
        `GET /_sandbox/app.js 403 cross_origin_forbidden: Origin "http://mail.test:8080" is not this server's own, http://mail.test or https://mail.test (from Host "mail.test"): the port differs`,
      )
      expect(logged[0]).toContain('proxy_set_header Host $http_host')
      expect(logged[1]).toContain(
        `GET /_sandbox/ 403 host_not_allowed: Host "evil.example:${port}" is none of localhost, *.localhost, an IP address or a name given with --allowed-host (mail.test)`,
      )
      expect(logged[2]).toContain(
        'GET /_sandbox/api/messages 403 cross_origin_forbidden: Sec-Fetch-Site: "cross-site"',
      )
      expect(result.stdout + result.stderr).not.toContain(token)
    }
  })

  it('says only https is its own when the server serves TLS, and names no port hint for another site', () => {
    expect(
      originComparison(
        { host: 'localhost:5025', origin: 'http://evil.test', site: 'cross-site', mode: 'cors' },
        true,
      ),
    ).toBe(
      `Origin "http://evil.test" is not this server's own, https://localhost:5025 (from Host "localhost:5025")`,
    )
  })
})
