import { afterAll, beforeAll, expect, it } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { describeSpamd, spamdForwarder, spamdReady, tcpServer } from '../helpers/spamd.js'
import { freePort } from '../helpers/free-port.js'

/**
 * GET /_sandbox/api/messages/:id/spam against Debian's real spamd (test/spamd-setup.ts), black-box
 * over HTTP: scores, the rules that fired, and every way spamd can fail (the process carries on).
 */

const RECEIPT = `<!doctype html><html lang="en"><head><title>Your receipt</title></head><body>
<h1>Thanks for your order, {{ name }}</h1>
<p>We received your payment for order 1042 on 3 March. Your books ship from our warehouse within two
working days, and we will write again with the tracking number once the parcel leaves.</p>
<table role="presentation"><tr><td>The Pragmatic Programmer</td><td>€39.00</td></tr>
<tr><td>Shipping</td><td>€4.90</td></tr><tr><td>Total</td><td>€43.90</td></tr></table>
<p>Questions about this order? Reply to this email and a person from our team will answer.</p>
<p>Acme Books, 12 Harbour Street, Bristol</p></body></html>`
const PROMO =
  '<html><body><a href="https://shop.example.com/offer"><img src="https://shop.example.com/banner.png" width="600" height="400" alt=""></a></body></html>'
const TEMPLATES = {
  'receipt.liquid': RECEIPT,
  'promo.liquid': PROMO,
  'big.liquid': '<p>{{ filler }}</p>',
}

let spamd: string
const closing: Array<{ close(): Promise<void> }> = []
afterAll(async () => {
  await Promise.all(closing.map((c) => c.close()))
})

async function sandboxWith(options: Parameters<typeof startTestSandbox>[1] = {}) {
  const sandbox = await startTestSandbox(TEMPLATES, options)
  closing.push(sandbox)
  return sandbox
}

async function send(
  sandbox: TestSandbox,
  template: string,
  subject: string,
  variables = {},
  token?: string,
) {
  const response = await sandbox.send(
    {
      template,
      from: 'Acme Books <orders@acme.test>',
      to: 'Ada <ada@example.com>',
      subject,
      templateVariables: { name: 'Ada', ...variables },
    },
    token,
  )
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

interface Score {
  score: number
  threshold: number
  isSpam: boolean
  rules: Array<{ name: string; score: number; description: string }>
}
const spamOf = async (sandbox: TestSandbox, id: string, token?: string) =>
  sandbox.api(`/_sandbox/api/messages/${id}/spam`, token ? { auth: token } : {})
const scoreOf = async (sandbox: TestSandbox, id: string) => {
  const response = await spamOf(sandbox, id)
  expect(response.status, await response.clone().text()).toBe(200)
  return (await response.json()) as Score
}

describeSpamd('the spam score, by a real spamd', () => {
  beforeAll(async () => {
    spamd = await spamdReady()
  })

  it('a clean receipt scores low, under the threshold', async () => {
    const sandbox = await sandboxWith({ spamassassin: spamd })
    const id = await send(sandbox, 'receipt', 'Your receipt for order 1042')
    const report = await scoreOf(sandbox, id)
    expect(report).toMatchObject({ threshold: 5, isSpam: false })
    expect(report.score).toBeLessThan(2)
    const names = report.rules.map((rule) => rule.name)
    // The .eml carries Date and Message-ID, as a real send does.
    expect(names).not.toContain('MISSING_DATE')
    expect(names).not.toContain('MISSING_MID')
    for (const rule of report.rules) expect(rule.description).not.toBe('')
  })

  it('an image-only message with an all-caps subject fires those rules, highest score first', async () => {
    const sandbox = await sandboxWith({ spamassassin: spamd })
    const id = await send(sandbox, 'promo', 'ACT NOW FREE GIFT INSIDE')
    const report = await scoreOf(sandbox, id)
    const names = report.rules.map((rule) => rule.name)
    expect(names).toContain('SUBJ_ALL_CAPS')
    expect(names.some((name) => name.startsWith('HTML_IMAGE_ONLY_'))).toBe(true)
    expect(report.rules.find((rule) => rule.name === 'SUBJ_ALL_CAPS')).toMatchObject({
      description: 'Subject is all capitals',
    })
    const scores = report.rules.map((rule) => rule.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    expect(report.score).toBeGreaterThan(2)
  })

  it('scores the message exactly as GET …/eml serves it, once: the score is kept', async () => {
    const forwarder = await spamdForwarder(spamd)
    closing.push(forwarder)
    const sandbox = await sandboxWith({ spamassassin: forwarder.address })
    const id = await send(sandbox, 'receipt', 'Your receipt for order 1043')
    const [first, second] = await Promise.all([scoreOf(sandbox, id), scoreOf(sandbox, id)])
    expect(second).toEqual(first)
    expect(await scoreOf(sandbox, id)).toEqual(first)
    expect(forwarder.connections()).toBe(1)
    const eml = Buffer.from(
      await (await sandbox.api(`/_sandbox/api/messages/${id}/eml`)).arrayBuffer(),
    )
    const request = forwarder.requests[0]!
    expect(request.subarray(request.length - eml.length)).toEqual(eml)
    expect(request.subarray(0, request.length - eml.length).toString()).toBe(
      `REPORT SPAMC/1.5\r\nUser: sendbox\r\nContent-length: ${eml.length}\r\n\r\n`,
    )
    // A message deleted takes its score with it (a new id is a new score anyway).
    expect((await sandbox.api(`/_sandbox/api/messages/${id}`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await spamOf(sandbox, id)).status).toBe(404)
  })

  it('spamd stopped: 502 naming host:port and why, kept scores still answer, sends unaffected', async () => {
    const forwarder = await spamdForwarder(spamd)
    const sandbox = await sandboxWith({ spamassassin: forwarder.address })
    const before = await send(sandbox, 'receipt', 'Your receipt for order 1044')
    await scoreOf(sandbox, before)
    await forwarder.close()
    const after = await send(sandbox, 'receipt', 'Your receipt for order 1045')
    const response = await spamOf(sandbox, after)
    expect(response.status).toBe(502)
    const error = await errorOf(response)
    expect(error).toMatchObject({
      code: 'spam_check_failed',
      message: `spamd at ${forwarder.address} could not be reached (ECONNREFUSED).`,
      details: [{ spamd: forwarder.address, reason: 'refused' }],
    })
    expect((await spamOf(sandbox, before)).status).toBe(200)
    await send(sandbox, 'promo', 'Still sending')
    const health = (await (await sandbox.api('/_sandbox/api/health')).json()) as {
      status: string
      messages: number
    }
    expect(health).toMatchObject({ status: 'ok', messages: 3 })
  })

  it('a message at the 1 MiB body limit is scored (framed whole: a 2 MB .eml)', async () => {
    // spamd took 11.5 s for this one on this 2-core machine under a load of 14 (docs/checks.md):
    // past the 10 s default, so the test gives it a minute; what is tested is the exchange.
    const sandbox = await sandboxWith({ spamassassin: spamd, spamassassinTimeout: 60_000 })
    const words = 'Your order ships within two working days from our warehouse. '
    // The request body just under --max-body (1 MiB): the filler is most of it.
    const filler = words.repeat(Math.floor((1024 * 1024 - 400) / words.length))
    const id = await send(sandbox, 'big', 'Your order, in full', { filler })
    const report = await scoreOf(sandbox, id)
    expect(report).toMatchObject({ threshold: 5, isSpam: false })
  }, 90_000)

  it('a template’s render is scored too, each time asked: GET with a case, POST with variables', async () => {
    const sandbox = await sandboxWith({ spamassassin: spamd })
    const got = await sandbox.api('/_sandbox/api/templates/promo/spam')
    expect(got.status, await got.clone().text()).toBe(200)
    const report = (await got.json()) as Score
    expect(report.rules.some((rule) => rule.name.startsWith('HTML_IMAGE_ONLY_'))).toBe(true)
    const posted = await sandbox.api('/_sandbox/api/templates/receipt/spam', {
      method: 'POST',
      json: { variables: { name: 'Ada' } },
    })
    expect(posted.status).toBe(200)
    expect(((await posted.json()) as Score).isSpam).toBe(false)
  })

  it('with projects, a project’s token scores its own messages only', async () => {
    const [A, B] = ['sandbox_acme_0123456789', 'sandbox_billing_0123456789']
    const sandbox = await sandboxWith({
      spamassassin: spamd,
      projects: { projects: { acme: { tokens: [A] }, billing: { tokens: [B] } } },
    })
    const id = await send(sandbox, 'receipt', 'Your receipt for order 1046', {}, A)
    expect((await spamOf(sandbox, id, A)).status).toBe(200)
    const other = await spamOf(sandbox, id, B)
    expect(other.status).toBe(404)
    expect((await errorOf(other)).code).toBe('message_not_found')
  })
})

it('without --spamassassin: 409 spam_check_not_configured, saying how to turn it on', async () => {
  const sandbox = await sandboxWith()
  const id = await send(sandbox, 'receipt', 'Your receipt')
  const response = await spamOf(sandbox, id)
  expect(response.status).toBe(409)
  const error = await errorOf(response)
  expect(error.code).toBe('spam_check_not_configured')
  expect(error.message).toContain('--spamassassin host:port')
  const template = await sandbox.api('/_sandbox/api/templates/receipt/spam')
  expect(template.status).toBe(409)
  // What the inbox asks first, so that it asks no score for a 409.
  const check = await sandbox.api('/_sandbox/api/spam')
  expect(await check.json()).toEqual({ configured: false, spamd: null })
})

it('GET /spam names the spamd --spamassassin gives (asked of nothing: spamd need not be up)', async () => {
  const sandbox = await sandboxWith({ spamassassin: '[::1]:7830' })
  const check = await sandbox.api('/_sandbox/api/spam')
  expect(check.status).toBe(200)
  expect(await check.json()).toEqual({ configured: true, spamd: '[::1]:7830' })
})

it('a spamd that never answers: 502 after the timeout (10 s by default, shortened here)', async () => {
  const silent = await tcpServer(() => {})
  closing.push(silent)
  const sandbox = await sandboxWith({ spamassassin: silent.address, spamassassinTimeout: 300 })
  const id = await send(sandbox, 'receipt', 'Your receipt')
  const response = await spamOf(sandbox, id)
  expect(response.status).toBe(502)
  expect(await errorOf(response)).toMatchObject({
    code: 'spam_check_failed',
    message: `spamd at ${silent.address} did not answer within 0.3 s.`,
    details: [{ spamd: silent.address, reason: 'timeout' }],
  })
})

it('something else at that port: 502, bad answer; nothing listening: refused', async () => {
  const web = await tcpServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
  closing.push(web)
  const sandbox = await sandboxWith({ spamassassin: web.address })
  const id = await send(sandbox, 'receipt', 'Your receipt')
  const response = await spamOf(sandbox, id)
  expect(response.status).toBe(502)
  expect((await errorOf(response)).details).toEqual([{ spamd: web.address, reason: 'bad_answer' }])
  const port = await freePort()
  const nobody = await sandboxWith({ spamassassin: `127.0.0.1:${port}` })
  const other = await send(nobody, 'receipt', 'Your receipt')
  expect((await errorOf(await spamOf(nobody, other))).details).toEqual([
    { spamd: `127.0.0.1:${port}`, reason: 'refused' },
  ])
})
