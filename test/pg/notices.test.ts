import { afterAll, beforeAll, expect, it } from 'vitest'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { openEventStream } from '../helpers/sse.js'
import { jsonOf } from '../helpers/http.js'

/**
 * Events of any size between processes on one database (docs/team.md): what crosses is bounded,
 * and no notice's failure fails a request or another notice. Before notices were bounded, a
 * `clicked` link of 9 KB or a bounce of 45 long addresses made a notice PostgreSQL refuses
 * (8,000 bytes at most); the statement carrying it failed with every notice it carried, and the
 * client's next statement on that connection got rows with holes (another project's sends
 * answered 500 though stored; the other process's stream missed messages).
 */

const TEMPLATES = {
  'link.liquid': '---\nsubject: Hi\n---\n<p><a href="{{ url }}">Open</a></p>',
}
const PROJECTS = {
  projects: {
    acme: { tokens: ['sandbox_acme_1'] },
    billing: { tokens: ['sandbox_billing_1'] },
  },
  admin: { tokens: ['sandbox_admin_1'] },
}

/** An address of about 100 characters whose recipient bounces. */
const bouncing = (i: number) =>
  `bounce+${String(i).padStart(3, '0')}@${'x'.repeat(40)}.${'y'.repeat(36)}.example.com`

describePg('notices between processes, whatever the event', () => {
  let a: TestSandbox
  let b: TestSandbox
  beforeAll(async () => {
    const store = await freshDatabase()
    a = await startTestSandbox(TEMPLATES, { memory: undefined, store, projects: PROJECTS })
    b = await startTestSandbox(TEMPLATES, { memory: undefined, store, projects: PROJECTS })
  })
  afterAll(() => Promise.all([a?.close(), b?.close()]))

  const send = (token: string, to: string | string[], url = 'https://acme.test/') =>
    a.send(
      { template: 'link', from: 'shop@acme.test', to, subject: 'Hi', templateVariables: { url } },
      token,
    )

  it('a 9 KB link clicked and 45 long addresses bounced reach the other process; another project sends on', async () => {
    const stream = await openEventStream(b.url, '', { authorization: 'token sandbox_admin_1' })
    try {
      const url = `https://acme.test/?q=${'a'.repeat(9 * 1024)}`
      const linked = await jsonOf(send('sandbox_acme_1', 'ada@example.com', url))
      const addresses = Array.from({ length: 45 }, (_, i) => bouncing(i))
      // Another project's sends, side by side with the big events, through the same process.
      const others = Array.from({ length: 40 }, (_, i) =>
        send('sandbox_billing_1', `reader-${i}@example.com`),
      )
      const [bounced, clicked, ...answers] = await Promise.all([
        send('sandbox_acme_1', addresses),
        a.api(`/_sandbox/api/messages/${linked.id}/events`, {
          method: 'POST',
          auth: 'sandbox_acme_1',
          json: { type: 'clicked', url },
        }),
        ...others,
      ])
      expect(bounced!.status).toBe(201)
      expect(clicked!.status).toBe(201)
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201))
      const ids = await Promise.all(answers.map(async (r) => (await jsonOf(r)).id as string))
      await stream.until(
        (events) =>
          ids.every((id) => events.some((e) => e.event === 'message' && e.data.id === id)) &&
          events.some(
            (e) =>
              e.event === 'status' && e.data.event.type === 'clicked' && e.data.event.url === url,
          ) &&
          addresses.every((address) =>
            events.some(
              (e) =>
                e.event === 'suppression' &&
                e.data.suppressions.some((s: { address: string }) => s.address === address),
            ),
          ),
        15_000,
      )
      // Every one of those sends is stored once: none failed after its commit.
      const listed = await jsonOf(
        b.api('/_sandbox/api/messages?project=billing&limit=100&fields=summary', {
          auth: 'sandbox_admin_1',
        }),
      )
      expect(listed.total).toBe(40)
    } finally {
      stream.close()
    }
  }, 30_000)

  it('a store that closes sends the notices published before first', async () => {
    const store = await openPostgresStore({ url: await freshDatabase(), maxMessages: 10 })
    // The first goes at once, the others wait for it and go together after it.
    const published = [1, 2, 3].map((n) => store.channel!.publish({ type: 'deleted', id: `m${n}` }))
    await store.close()
    const settled = await Promise.allSettled(published)
    expect(settled.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ])
  })
})
