import { createServer, request as httpRequest, type Server } from 'node:http'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  startTestSandbox,
  tempDir,
  TOKEN,
  writeFiles,
  type TestSandbox,
} from '../helpers/sandbox.js'
import { hasChromium, launch, openPage, readTree } from './helpers.js'

/**
 * docs/security.md in a real browser: a hostile page, served from another origin (127.0.0.2) and
 * through a rebinding name (evil.test mapped to 127.0.0.1 by Chromium's resolver), tries every
 * way a page can reach a local server: fetch, no-cors POSTs, sendBeacon, a text/plain form,
 * EventSource, and reads. Nothing is read, written or armed; the inbox itself still works.
 */

const SECRET = 'SECRET-RESET-123'
const ROOT = join(import.meta.dirname, '..', '..')

/**
 * The attack, run in the hostile page against TARGET ('' for its own origin), as plain JavaScript
 * (the page is not ours to transpile). Every request carries `?attack=<name>` so that the test
 * can wait for each one to have reached the network. `window.results` is what each attempt got.
 */
const ATTACK = `
window.results = (async () => {
  const results = {}
  const url = (path, name) => TARGET + path + (path.includes('?') ? '&' : '?') + 'attack=' + encodeURIComponent(name)
  const run = async (name, fn) => {
    try { results[name] = String(await fn(name)) } catch (error) { results[name] = 'threw ' + error.name }
  }
  const read = async (response) => response.type + ' ' + response.status + ' ' + (await response.text())
  const hijack = JSON.stringify({ name: 'big-order', variables: { hijacked: true }, overwrite: true })
  const fault = JSON.stringify({ status: 503, count: 1000000 })

  // Reads.
  await run('fetch messages', async (n) => read(await fetch(url('/_sandbox/api/messages', n))))
  await run('fetch messages no-cors', async (n) => read(await fetch(url('/_sandbox/api/messages', n), { mode: 'no-cors' })))
  await run('fetch wait', async (n) => read(await fetch(url('/_sandbox/api/messages/wait?timeout=0', n))))
  await run('fetch a template with a token', async (n) => read(await fetch(url('/templates/password-reset', n), { headers: { authorization: 'token sandbox_evil' } })))
  await run('EventSource', (n) => new Promise((resolve) => {
    const source = new EventSource(url('/_sandbox/api/events', n))
    source.addEventListener('open', () => { source.close(); resolve('opened') })
    source.addEventListener('error', () => { source.close(); resolve('error') })
  }))

  // Writes that need no CORS preflight.
  await run('no-cors POST fault', async (n) => read(await fetch(url('/_sandbox/api/faults', n), { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: fault })))
  await run('no-cors POST fixture', async (n) => read(await fetch(url('/_sandbox/api/templates/order-receipt/fixtures', n), { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: hijack })))
  await run('no-cors POST preview', async (n) => read(await fetch(url('/_sandbox/api/previews', n), { method: 'POST', mode: 'no-cors', body: JSON.stringify({ template: 'welcome', variables: {} }) })))
  await run('sendBeacon fault', (n) => navigator.sendBeacon(url('/_sandbox/api/faults', n), fault))
  await run('sendBeacon fixture', (n) => navigator.sendBeacon(url('/_sandbox/api/templates/order-receipt/fixtures', n), new Blob([JSON.stringify({ name: 'beacon', variables: { x: 1 } })], { type: 'text/plain' })))
  await run('text/plain form', (n) => new Promise((resolve) => {
    const frame = document.createElement('iframe')
    frame.name = 'sink'
    document.body.append(frame)
    const form = document.createElement('form')
    form.method = 'POST'
    form.enctype = 'text/plain'
    form.target = 'sink'
    form.action = url('/_sandbox/api/templates/order-receipt/fixtures', n)
    const input = document.createElement('input')
    // text/plain sends "name=value": a JSON body whose last string swallows the "=".
    input.name = '{"name":"big-order","overwrite":true,"variables":{"hijacked":true},"x":"'
    input.value = '"}'
    form.append(input)
    document.body.append(form)
    frame.addEventListener('load', () => resolve('submitted'), { once: true })
    form.submit()
  }))

  // Writes that need a preflight (none after a rebinding: same origin).
  await run('DELETE messages', async (n) => read(await fetch(url('/_sandbox/api/messages', n), { method: 'DELETE' })))
  await run('POST fault as JSON', async (n) => read(await fetch(url('/_sandbox/api/faults', n), { method: 'POST', headers: { 'content-type': 'application/json' }, body: fault })))
  return results
})()
`

/** How many attempts ATTACK makes. */
const ATTACKS = 13

const HOSTILE_PAGE = (target: string) =>
  `<!doctype html><html><head><title>cute cats</title></head><body><p>Nothing to see here.</p><script>const TARGET = ${JSON.stringify(target)};${ATTACK}</script></body></html>`

/** Every attack's request has reached the network (finished, or failed as a blocked preflight does). */
function trackAttacks(page: Page): (count: number) => Promise<void> {
  const settled = new Set<string>()
  const note = (url: string) => {
    const name = new URL(url).searchParams.get('attack')
    if (name) settled.add(name)
  }
  page.on('requestfinished', (request) => note(request.url()))
  page.on('requestfailed', (request) => note(request.url()))
  return async (count) => {
    await expect
      .poll(() => settled.size, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(count)
      .catch((error: Error) => {
        throw new Error(`${error.message}; settled: ${[...settled].join(', ')}`)
      })
  }
}

describe.skipIf(!hasChromium)('a hostile page in Chromium', { timeout: 60_000 }, () => {
  let sandbox: TestSandbox
  let fixturesDir: string
  let fixturesBefore: Record<string, string>
  let hostile: Server
  let hostileOrigin: string
  let browser: Browser

  const unchanged = async () => {
    expect(await readTree(fixturesDir), 'the fixtures folder').toEqual(fixturesBefore)
    expect(
      ((await (await fetch(`${sandbox.url}/_sandbox/api/faults`)).json()) as { faults: unknown[] })
        .faults,
      'armed faults',
    ).toEqual([])
    const messages = await sandbox.messages()
    expect(
      messages.map((m) => m.subject),
      'the log',
    ).toEqual(['Reset your password'])
  }

  const expectNothingRead = (results: Record<string, string>) => {
    expect(Object.keys(results).length).toBe(ATTACKS)
    for (const [name, result] of Object.entries(results)) {
      expect(result, name).not.toContain(SECRET)
      expect(result, name).not.toContain('ada@example.com')
    }
    expect(results.EventSource).toBe('error')
  }

  beforeAll(async () => {
    fixturesDir = await tempDir('sendbox-fixtures-')
    await writeFiles(fixturesDir, await readTree(join(ROOT, 'fixtures')))
    fixturesBefore = await readTree(fixturesDir)
    sandbox = await startTestSandbox(await readTree(join(ROOT, 'templates')), {
      fixtures: fixturesDir,
    })
    const sent = await sandbox.send({
      template: 'password-reset',
      from: 'Acme <hello@acme.test>',
      to: 'Ada <ada@example.com>',
      subject: 'Reset your password',
      templateVariables: { name: 'Ada', resetUrl: `https://acme.test/reset?token=${SECRET}` },
    })
    expect(sent.status).toBe(201)
    const target = sandbox.url
    hostile = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(HOSTILE_PAGE(target))
    })
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.2', resolve))
    hostileOrigin = `http://127.0.0.2:${(hostile.address() as { port: number }).port}`
    browser = await launch([`--host-resolver-rules=MAP evil.test 127.0.0.1`])
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => hostile?.close(resolve))
    await sandbox?.close()
  })

  it('from another origin (127.0.0.2): reads nothing, writes nothing, arms nothing', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const settled = trackAttacks(page)
    await page.goto(`${hostileOrigin}/`)
    const results = (await page.evaluate(
      () => (window as unknown as { results: Promise<Record<string, string>> }).results,
    )) as Record<string, string>
    await settled(ATTACKS)
    expectNothingRead(results)
    // CORS hides the answer from the page; the no-cors ones are opaque.
    expect(results['fetch messages']).toBe('threw TypeError')
    expect(results['fetch messages no-cors']).toBe('opaque 0 ')
    expect(results['sendBeacon fault']).toBe('true')
    await unchanged()
    await context.close()
  })

  it('through a rebinding name (evil.test → 127.0.0.1, same origin as far as the page knows): every request is 403 host_not_allowed', async () => {
    // A rebinding: the page came from the attacker's server under evil.test; then the name points
    // at this machine, and the page's same-origin requests reach sendbox with Host: evil.test.
    // Chromium maps evil.test to 127.0.0.1, where the "attacker" answers the page itself and hands
    // every other request to sendbox untouched (Host, Origin, Sec-Fetch-* and body as sent).
    // (A page Playwright fulfils itself counts as public, and Chromium's Local Network Access
    // would block it before sendbox saw anything: that would prove Chromium's check, not ours.)
    const target = new URL(sandbox.url)
    const rebinder = createServer((request, response) => {
      if (request.url === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        return response.end(HOSTILE_PAGE(''))
      }
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(response)
        },
      )
      upstream.on('error', () => response.destroy())
      request.pipe(upstream)
    })
    await new Promise<void>((resolve) => rebinder.listen(0, '127.0.0.1', resolve))
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const settled = trackAttacks(page)
      await page.goto(`http://evil.test:${(rebinder.address() as { port: number }).port}/`)
      const results = (await page.evaluate(
        () => (window as unknown as { results: Promise<Record<string, string>> }).results,
      )) as Record<string, string>
      await settled(ATTACKS)
      expectNothingRead(results)
      // Same origin to the browser, so it reads the answers: sendbox's refusal, and nothing else.
      for (const name of [
        'fetch messages',
        'fetch wait',
        'fetch a template with a token',
        'DELETE messages',
        'POST fault as JSON',
      ]) {
        expect(results[name], name).toMatch(/^basic 403 .*"host_not_allowed"/)
      }
      await unchanged()
    } finally {
      await context.close()
      rebinder.closeAllConnections()
      await new Promise((resolve) => rebinder.close(resolve))
    }
  })

  it('the inbox itself still works: it lists, streams, and its own writes go through', async () => {
    const { page, errors, close } = await openPage(browser, `${sandbox.url}/_sandbox/`)
    await page.locator('#message-list a[data-id]', { hasText: 'Reset your password' }).waitFor()
    const armed = await page.evaluate(
      async () =>
        (
          await fetch('/_sandbox/api/faults', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"status":503}',
          })
        ).status,
    )
    expect(armed).toBe(201)
    expect(
      await page.evaluate(
        async () => (await fetch('/_sandbox/api/faults', { method: 'DELETE' })).status,
      ),
    ).toBe(204)
    expect(
      (
        await sandbox.send({
          template: 'welcome',
          from: 'Acme <hello@acme.test>',
          to: 'Bob <bob@example.com>',
          subject: 'Live one',
          templateVariables: { name: 'Bob', dashboardUrl: 'https://acme.test' },
        })
      ).status,
    ).toBe(201)
    await page.locator('#message-list a[data-id]', { hasText: 'Live one' }).waitFor()
    expect(errors).toEqual([])
    await close()
    // Put the log back as the other tests expect it.
    await sandbox.clear({ subject: 'Live one' })
  })

  it('with --inspector-password the inbox works once signed in, and the API still answers a --cors origin only', async () => {
    const guarded = await startTestSandbox(
      { 'welcome.liquid': 'Hi {{ name }}' },
      { inspectorPassword: 'pw', cors: [hostileOrigin] },
    )
    try {
      const signedIn = await openPage(browser, `${guarded.url}/_sandbox/`, {
        httpCredentials: { username: 'me', password: 'pw' },
      })
      expect(await signedIn.page.locator('#status').getAttribute('data-state')).toBe('live')
      await signedIn.close()

      // The --cors origin sends and reads through the emulated API, and still cannot touch the inspector.
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${hostileOrigin}/`)
      const answers = await page.evaluate(
        async ({ target, token }) => {
          const sent = await fetch(`${target}/messages`, {
            method: 'POST',
            headers: { authorization: `token ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              template: 'welcome',
              from: 'a@acme.test',
              to: 'b@example.com',
              subject: 'From the app',
              templateVariables: { name: 'Ada' },
            }),
          })
          const inspector = await fetch(`${target}/_sandbox/api/messages`).then(
            (r) => `read ${r.status}`,
            (e: Error) => `threw ${e.name}`,
          )
          return { sent: sent.status, location: sent.headers.get('location'), inspector }
        },
        { target: guarded.url, token: TOKEN },
      )
      expect(answers).toEqual({
        sent: 201,
        location: expect.stringMatching(/^\/_sandbox\/api\/messages\/msg_/),
        inspector: 'threw TypeError',
      })
      expect((await guarded.messages()).map((m) => m.subject)).toEqual(['From the app'])
      await context.close()
    } finally {
      await guarded.close()
    }
  })
})
