import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MessageRecord } from '../src/index.js'
import type { TestSandbox } from './helpers/sandbox.js'
import { openEventStream } from './helpers/sse.js'
import { onEachStore } from './helpers/stores.js'

/**
 * docs/testing.md#what-a-record-carries, links and codes: black-box, on real templates sent through POST /messages, read
 * back from every place a record leaves sendbox (list, /wait, /:id, the event stream, the
 * programmatic API, a simulated click's answer).
 */

const LINKS = `<html><head><title>Not a link text</title><style>a { color: red }</style></head><body>
<p>Hi {{ name }},</p>
<p><a title="a>b" class="btn" href="  https://acme.test/reset?token={{ token }}&amp;user=ada&#38;x=1  ">Reset&nbsp;your
   <b>password</b></a></p>
<p><a href="https://acme.test/"><img src="https://acme.test/logo.png" alt="Acme &amp; Co"></a></p>
<p><a href="https://acme.test/help">Help</a> or <a href='https://acme.test/help'>Help</a></p>
<p><a href="https://acme.test/blank"><img src="https://acme.test/pixel.png"></a></p>
<p><a href="https://acme.test/blocks"><div>Open</div><div>the   app</div></a></p>
<map name="office"><area shape="rect" coords="0,0,10,10" href="https://acme.test/map" alt="Our office"></map>
<p><a name="top">an anchor without href is no link</a></p>
</body></html>`

/** A text part of its own: the URLs it has that the HTML lacks come after, with text null. */
const LINKS_TEXT = `Reset your password: https://acme.test/reset?token={{ token }}&user=ada&x=1
Or paste https://acme.test/manual?step=2. Status (https://status.acme.test/).
Again: https://acme.test/manual?step=2
`

const SIGN_IN = `<p>Your verification code is {{ code }}.</p><p>It expires in 10 minutes.</p>`

const ALONE = `Sign in to Acme

Type this code where you started signing in:

    A7K2P9

Not you? Ignore this email.
`

const RECEIPT = `Thanks for your order, Ada!

Order #104223 was placed on November 21, 2026 at 10:42 (2026-11-21).
Invoice No. 20261121, invoice 88231945.
Order number: 55512345
Total: $1,234.00 (1234.00 EUR, USD 4321)
Questions? Call +1 555 123 4567 or (555) 123-4567, 555-123-4567.
Mon 21/11/2026 14:30
Visit https://acme.test/orders/104223?ref=55519999 or write to 777123@acme.test
1 Example Street, Springfield 90210
`

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start({
      'links.liquid': LINKS,
      'links.txt.liquid': LINKS_TEXT,
      'sign-in.liquid': SIGN_IN,
      'alone.liquid': '<p>see text</p>',
      'alone.txt.liquid': ALONE,
      'receipt.liquid': '<p>see text</p>',
      'receipt.txt.liquid': RECEIPT,
    })
  })
  afterAll(() => sandbox?.close())

  async function send(
    template: string,
    to: string,
    templateVariables: object = {},
  ): Promise<string> {
    const response = await sandbox.send({
      template,
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Hi',
      templateVariables,
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }

  const getRecord = async (id: string) =>
    (await (await sandbox.api(`/_sandbox/api/messages/${id}`)).json()) as MessageRecord

  describe('links', () => {
    it('lists every <a href> and <area href> in document order, duplicates kept, hrefs decoded and trimmed, then the text part URLs', async () => {
      const id = await send('links', 'links@example.com', { name: 'Ada', token: 't0k' })
      const record = await getRecord(id)
      expect(record.links).toEqual([
        { href: 'https://acme.test/reset?token=t0k&user=ada&x=1', text: 'Reset your password' },
        { href: 'https://acme.test/', text: 'Acme & Co' },
        { href: 'https://acme.test/help', text: 'Help' },
        { href: 'https://acme.test/help', text: 'Help' },
        { href: 'https://acme.test/blank', text: '' },
        { href: 'https://acme.test/blocks', text: 'Open the app' },
        { href: 'https://acme.test/map', text: 'Our office' },
        { href: 'https://acme.test/manual?step=2', text: null },
        { href: 'https://status.acme.test/', text: null },
      ])
    })

    it('are the same in the list, /wait, the event stream, the programmatic API and a simulated click', async () => {
      const events = await openEventStream(sandbox.url)
      try {
        const id = await send('links', 'same@example.com', { name: 'Ada', token: 'same' })
        const one = await getRecord(id)
        expect(one.links).toHaveLength(9)
        const frames = await events.until((all) =>
          all.some((e) => e.event === 'message' && e.data.id === id),
        )
        const streamed = frames.find((e) => e.event === 'message' && e.data.id === id)!
          .data as MessageRecord
        expect(streamed.links).toEqual(one.links)
        expect(streamed.codes).toEqual(one.codes)
        const list = (await (
          await sandbox.api('/_sandbox/api/messages?to=same@example.com')
        ).json()) as { messages: MessageRecord[] }
        expect(list.messages[0]!.links).toEqual(one.links)
        const waited = (await (
          await sandbox.api('/_sandbox/api/messages/wait?to=same@example.com')
        ).json()) as MessageRecord
        expect(waited.links).toEqual(one.links)
        const [programmatic] = await sandbox.messages({ to: 'same@example.com' })
        expect(programmatic!.links).toEqual(one.links)
        expect((await sandbox.waitForMessage({ to: 'same@example.com' })).links).toEqual(one.links)
        // A click may name any of them, the text part's own included; the answer is a record too.
        const clicked = await sandbox.api(`/_sandbox/api/messages/${id}/events`, {
          method: 'POST',
          json: { type: 'clicked', url: 'https://acme.test/reset?token=same&user=ada&x=1' },
        })
        expect(clicked.status).toBe(201)
        expect(((await clicked.json()) as MessageRecord).links).toEqual(one.links)
        const textOnly = await sandbox.simulate(id, {
          type: 'clicked',
          url: 'https://status.acme.test/',
        })
        expect(textOnly.links).toEqual(one.links)
        // The summaries leave them out with the bodies.
        const summary = (await (
          await sandbox.api('/_sandbox/api/messages?to=same@example.com&fields=summary')
        ).json()) as { messages: Array<Record<string, unknown>> }
        expect(summary.messages[0]).not.toHaveProperty('links')
      } finally {
        events.close()
      }
    })

    it('a click on a link whose tag has a quoted ">" is accepted; one on no link lists the links', async () => {
      const id = await send('links', 'click@example.com', { name: 'Ada', token: 'q' })
      const ok = await sandbox.api(`/_sandbox/api/messages/${id}/events`, {
        method: 'POST',
        json: { type: 'clicked', url: 'https://acme.test/reset?token=q&user=ada&x=1' },
      })
      expect(ok.status).toBe(201)
      // Text that only occurs inside the HTML, not as a link, is no link.
      const refused = await sandbox.api(`/_sandbox/api/messages/${id}/events`, {
        method: 'POST',
        json: { type: 'clicked', url: 'https://acme.test/logo.png' },
      })
      expect(refused.status).toBe(422)
      const error = ((await refused.json()) as { error: { code: string; details: unknown[] } })
        .error
      expect(error.code).toBe('url_not_in_message')
      expect(error.details).toEqual([
        {
          field: 'url',
          links: [
            'https://acme.test/reset?token=q&user=ada&x=1',
            'https://acme.test/',
            'https://acme.test/help',
            'https://acme.test/blank',
            'https://acme.test/blocks',
            'https://acme.test/map',
            'https://acme.test/manual?step=2',
            'https://status.acme.test/',
          ],
        },
      ])
    })
  })

  describe('codes', () => {
    it('reads a code after "verification code", grouped digits joined', async () => {
      for (const [code, expected] of [
        ['482913', '482913'],
        ['482 913', '482913'],
        ['482-913', '482913'],
      ] as const) {
        const id = await send('sign-in', `code-${expected}@example.com`, { code })
        expect((await getRecord(id)).codes).toEqual([expected])
      }
    })

    it('reads a letters-and-digits code standing alone on its line', async () => {
      const id = await send('alone', 'alone@example.com')
      expect((await getRecord(id)).codes).toEqual(['A7K2P9'])
    })

    it('finds none in a receipt: order and invoice numbers, total, dates, times, phones, URLs, addresses', async () => {
      const id = await send('receipt', 'receipt@example.com')
      const record = await getRecord(id)
      expect(record.text).toContain('Order #104223')
      expect(record.codes).toEqual([])
    })

    it('finds none, and no links, in a message without them', async () => {
      const id = await send('alone', 'plain@example.com')
      expect((await getRecord(id)).links).toEqual([])
    })
  })
})
