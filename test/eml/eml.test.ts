import { execFileSync, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import fc from 'fast-check'
import { simpleParser, type AddressObject } from 'mailparser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toEml } from '../../src/core/eml.js'
import { startSendbox, type Sendbox } from '../../src/index.js'
import type { MessageRecord } from '../../src/store/types.js'
import { ROOT } from '../helpers/cli.js'

/**
 * The .eml of a message read back by two MIME parsers nobody here wrote: mailparser, and Python's
 * `email` with its strict policy. Both must read exactly the subject, names, addresses, HTML
 * and text that were stored, with zero defects; and the bytes must be RFC 5322 (CRLF only).
 */

const PYTHON = spawnSync('python3', ['--version']).status === 0 ? 'python3' : null

let sandbox: Sendbox
beforeAll(async () => {
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(ROOT, 'templates'),
    fixtures: join(ROOT, 'fixtures'),
  })
})
afterAll(() => sandbox?.close())

const receipt = {
  customer: { name: 'Ada Lovelace' },
  order: {
    id: '1042',
    url: 'https://example.com/orders/1042',
    items: [
      { name: 'Analytical Engine manual', quantity: 1, price: '24.00' },
      { name: 'Brass gear = 2 × “cog”', quantity: 12, price: '3.50' },
    ],
    total: '66.00',
  },
}

async function sendAndFetch(message: {
  from: string
  to: string | string[]
  subject: string
}): Promise<{ record: MessageRecord; eml: Buffer }> {
  const response = await fetch(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${sandbox.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'order-receipt', templateVariables: receipt, ...message }),
  })
  expect(response.status, await response.clone().text()).toBe(201)
  const { id } = (await response.json()) as { id: string }
  const record = (await (
    await fetch(`${sandbox.url}/_sandbox/api/messages/${id}`)
  ).json()) as MessageRecord
  const eml = Buffer.from(
    await (await fetch(`${sandbox.url}/_sandbox/api/messages/${id}/eml`)).arrayBuffer(),
  )
  return { record, eml }
}

/** RFC 5322 §2.3 and RFC 2045 §6.7: CR and LF only together. */
function bareLineBreaks(eml: Buffer): number {
  const text = eml.toString('latin1')
  return (text.match(/\r(?!\n)|(?<!\r)\n/g) ?? []).length
}

const canonical = (text: string) => text.replace(/\r\n|\r|\n/g, '\r\n')

const names = (list: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(list) ? list : list ? [list] : []).flatMap((a) =>
    a.value.map((v) => [v.name, v.address]),
  )

const cases: Array<
  [name: string, message: { from: string; to: string | string[]; subject: string }]
> = [
  [
    'plain ASCII',
    {
      from: 'Acme <hello@acme.test>',
      to: 'Ada Lovelace <ada@example.com>',
      subject: 'Your receipt',
    },
  ],
  [
    'an encoded word in the subject and a name stays literal',
    {
      from: '"=?UTF-8?B?SGk=?=" <hello@acme.test>',
      to: '"=?utf-8?q?Ada?=" <ada@example.com>',
      subject: 'Hi =?UTF-8?B?SGk=?= there',
    },
  ],
  [
    'UTF-8 subject and names, quoted names, several recipients',
    {
      from: 'Zoë Ünïcode <zoe@acme.test>',
      to: [
        '"Lovelace, Ada" <ada@example.com>',
        'Grace "Amazing" Hopper <grace@example.com>',
        'bare@example.com',
      ],
      subject: 'Reçu — commande n° 1042 ✓ 🧾',
    },
  ],
  [
    'a long subject with no space to fold at',
    { from: 'hello@acme.test', to: 'ada@example.com', subject: 'x'.repeat(998) },
  ],
  [
    'a long subject of words, and 50 recipients',
    {
      from: 'A Very Long Display Name That Goes On And On For Quite A While Indeed <hello@acme.test>',
      to: Array.from({ length: 50 }, (_, i) => `Recipient Number ${i} <user${i}@example.com>`),
      subject: 'word '.repeat(150).trim(),
    },
  ],
]

describe('GET /_sandbox/api/messages/:id/eml', () => {
  it.each(cases)(
    '%s: CRLF only, lines within 998 octets (headers within 78)',
    async (_name, message) => {
      const { eml } = await sendAndFetch(message)
      expect(bareLineBreaks(eml)).toBe(0)
      const text = eml.toString('latin1')
      const [head] = text.split('\r\n\r\n')
      for (const line of text.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998)
      for (const line of head!.split('\r\n')) expect(line.length, line).toBeLessThanOrEqual(78)
    },
  )

  it.each(cases)('%s: mailparser reads back exactly what was stored', async (_name, message) => {
    const { record, eml } = await sendAndFetch(message)
    const parsed = await simpleParser(eml)
    expect(parsed.subject).toBe(record.subject)
    expect(names(parsed.from)).toEqual([[record.from.name ?? '', record.from.address]])
    expect(names(parsed.to)).toEqual(record.to.map((to) => [to.name ?? '', to.address]))
    expect(parsed.html).toBe(record.html)
    expect(parsed.text).toBe(record.text)
    expect(parsed.messageId).toBe(`<${record.id}@sendbox.local>`)
    expect(parsed.headers.get('x-sendbox-template')).toBe('order-receipt')
    expect(parsed.headers.get('x-sendbox-project')).toBe(record.project)
    expect(parsed.date?.toISOString()).toBe(
      new Date(Math.floor(Date.parse(record.createdAt) / 1000) * 1000).toISOString(),
    )
  })

  it.skipIf(!PYTHON).each(cases)(
    "%s: Python's email (strict policy) reads it with zero defects",
    async (_name, message) => {
      const { record, eml } = await sendAndFetch(message)
      const out = execFileSync(PYTHON!, [join(ROOT, 'test/eml/parse_eml.py')], { input: eml })
      const parsed = JSON.parse(out.toString('utf8')) as Record<string, unknown>
      expect(parsed.defects).toEqual([])
      expect(parsed.subject).toBe(record.subject)
      expect(parsed.from).toEqual([[record.from.name ?? '', record.from.address]])
      expect(parsed.to).toEqual(record.to.map((to) => [to.name ?? '', to.address]))
      // A text part's canonical line break is CRLF (RFC 2046 §4.1.1), and Python hands it back so.
      expect(parsed.html).toBe(canonical(record.html))
      expect(parsed.text).toBe(canonical(record.text))
      expect(parsed.template).toBe('order-receipt')
    },
  )

  it.runIf(!PYTHON)("Python's email check is skipped: python3 is not installed", () => {
    console.warn('test/eml: python3 not found; the strict-policy parse was skipped')
  })
})

describe('toEml, for any subject, names and bodies', () => {
  // Whatever a send accepts: one line of any characters, names of any characters, any bodies.
  const line = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 120 })
    .filter((s) => !/[\r\n]/.test(s))
  const name = fc.oneof(
    fc.constant(null),
    line.filter((s) => s.trim() === s && s.trim() !== ''),
    fc.constantFrom('=?UTF-8?B?SGk=?=', 'a "b" c', 'x\\y', 'From me'),
  )
  // Not empty: mailparser reads an empty part as text "\n" and html false (Python reads "").
  const body = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 })
  const record = fc
    .record({ subject: line, fromName: name, toName: name, text: body, html: body })
    .map(
      ({ subject, fromName, toName, text, html }): MessageRecord => ({
        id: 'msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D',
        status: 'sent',
        createdAt: '2026-11-21T10:00:00.000Z',
        project: '1f2e3d4c',
        tokenHint: 'sandbox_…',
        template: 'welcome',
        from: { name: fromName, address: 'hello@acme.test' },
        to: [{ name: toName, address: 'ada@example.com' }],
        subject,
        templateVariables: {},
        html,
        text,
        warnings: [],
        recipients: [],
      }),
    )

  it('mailparser reads back the same subject, names and bodies (line breaks canonical), and every line break is CRLF', async () => {
    await fc.assert(
      fc.asyncProperty(record, async (message) => {
        const eml = toEml(message)
        expect(bareLineBreaks(eml)).toBe(0)
        const parsed = await simpleParser(eml)
        expect(parsed.subject).toBe(message.subject)
        expect(names(parsed.from)).toEqual([[message.from.name ?? '', message.from.address]])
        expect(names(parsed.to)).toEqual([[message.to[0]!.name ?? '', message.to[0]!.address]])
        expect(canonical(parsed.text ?? '')).toBe(canonical(message.text))
        expect(canonical(typeof parsed.html === 'string' ? parsed.html : '')).toBe(
          canonical(message.html),
        )
      }),
      { numRuns: 300, seed: 14 },
    )
  })
})
