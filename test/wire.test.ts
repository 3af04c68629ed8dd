import { request } from 'node:http'
import { STATUS_CODES } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/** What goes over the wire, read with node:http (fetch hides the reason phrase). */

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({ 'welcome.liquid': 'Hello {{ name }}' })
  })
  afterAll(() => sandbox?.close())

  interface Wire {
    status: number
    reason: string
    type: string | undefined
  }

  function wire(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const url = new URL(sandbox.url)
      const req = request(
        { host: url.hostname, port: url.port, method, path, headers: init.headers ?? {} },
        (res) => {
          const done = () =>
            resolve({
              status: res.statusCode ?? 0,
              reason: res.statusMessage ?? '',
              type: res.headers['content-type'],
            })
          // An event stream never ends: its head is all this needs.
          if (String(res.headers['content-type']).startsWith('text/event-stream')) {
            res.destroy()
            return done()
          }
          res.resume()
          res.on('end', done)
        },
      )
      req.on('error', reject)
      req.end(init.body)
    })
  }

  const json = { 'content-type': 'application/json', authorization: `token ${TOKEN}` }
  const send = JSON.stringify({
    template: 'welcome',
    from: 'a@b.test',
    to: 'c@d.test',
    subject: 'Hi',
    templateVariables: { name: 'Ada' },
  })

  const requests: Array<
    [
      name: string,
      method: string,
      path: string,
      init?: { headers?: Record<string, string>; body?: string },
    ]
  > = [
    ['201 send', 'POST', '/messages', { headers: json, body: send }],
    ['422 send', 'POST', '/messages', { headers: json, body: '{}' }],
    ['400 invalid_json', 'POST', '/messages', { headers: json, body: '{' }],
    ['401', 'GET', '/templates'],
    ['200 templates', 'GET', '/templates', { headers: json }],
    ['200 health', 'GET', '/_sandbox/api/health'],
    ['200 list', 'GET', '/_sandbox/api/messages'],
    [
      '201 fault',
      'POST',
      '/_sandbox/api/faults',
      { headers: json, body: '{"status":503,"match":{"to":"nobody@nowhere"}}' },
    ],
    ['200 faults', 'GET', '/_sandbox/api/faults'],
    ['204', 'DELETE', '/_sandbox/api/faults'],
    ['404', 'GET', '/nope'],
    ['405', 'PATCH', '/messages'],
    ['302', 'GET', '/'],
    ['200 html', 'GET', '/_sandbox/api/templates/welcome/preview'],
    ['200 events', 'GET', '/_sandbox/api/events'],
    ['200 openapi', 'GET', '/_sandbox/api/openapi.json'],
    ['HEAD', 'HEAD', '/_sandbox/api/health'],
  ]

  describe('the wire', () => {
    it.each(requests)(
      '%s: the status line has its reason phrase',
      async (_name, method, path, init) => {
        const answer = await wire(method, path, init)
        expect(answer.reason, `${method} ${path} → ${answer.status}`).toBe(
          STATUS_CODES[answer.status],
        )
      },
    )

    it.each(requests)(
      '%s: JSON is always "application/json; charset=utf-8"',
      async (_name, method, path, init) => {
        const answer = await wire(method, path, init)
        if (answer.type?.toLowerCase().includes('json'))
          expect(answer.type).toBe('application/json; charset=utf-8')
      },
    )
  })
})
