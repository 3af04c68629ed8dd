import { afterAll, beforeAll, expect, it } from 'vitest'
import { connectSendbox } from '../src/index.js'
import { jsonOf } from './helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from './helpers/sandbox.js'
import { onEachStore } from './helpers/stores.js'

/**
 * A reader following `after=<cursor>` sees every message exactly once, through any process,
 * whatever order concurrent sends commit in (docs/inspector.md#cursors-waiting-for-what-an-action-sends).
 * On PostgreSQL a list read its page and its cursor (the highest seq) in two statements, and two
 * sends could commit out of seq order: a poller of 600 messages under 16 senders missed 23 on
 * one process and 31 across two, and saw others twice; the test kit's waits (a page, then a wait
 * after its cursor) timed out on mail that had arrived.
 */

const TEMPLATES = {
  'link.liquid':
    '---\nsubject: Hi\n---\n<p><a href="https://acme.test/confirm/{{ n }}">Confirm</a></p>',
}
const MESSAGES = 600
const SENDERS = 16
/** Every this many messages, one goes to an inbox of the kit that waits for its link meanwhile. */
const INBOX_EVERY = 20

type Page = { messages: { id: string }[]; cursor: string }

onEachStore((store) => {
  const sandboxes: TestSandbox[] = []
  beforeAll(async () => {
    const options = await store.options()
    // Two processes on one database; the log is one process's.
    const count = store.name === 'postgres' ? 2 : 1
    for (let i = 0; i < count; i++) sandboxes.push(await startTestSandbox(TEMPLATES, options))
  })
  afterAll(() => Promise.all(sandboxes.map((s) => s.close())))

  const list = async (sandbox: TestSandbox, query: string): Promise<Page> =>
    jsonOf(sandbox.api(`/_sandbox/api/messages?fields=summary&limit=1000${query}`))

  it('a reader following the cursor sees each of 600 messages once, under 16 senders through every process', async () => {
    const reader = sandboxes.at(-1)!
    const kit = connectSendbox(reader.url, { token: TOKEN })
    const seen = new Map<string, number>()
    let cursor = (await list(reader, '')).cursor
    const poll = async () => {
      const page = await list(reader, `&after=${cursor}`)
      for (const { id } of page.messages) seen.set(id, (seen.get(id) ?? 0) + 1)
      cursor = page.cursor
    }
    const sent: string[] = []
    const links: Promise<string>[] = []
    let next = 0
    const sender = async () => {
      for (let n = next++; n < MESSAGES; n = next++) {
        const inbox = n % INBOX_EVERY === 0 ? kit.inbox() : null
        // The kit's wait begins as its message is sent: a page, then a wait after its cursor.
        if (inbox) {
          const link = inbox.waitForLink({ timeout: 30_000 })
          // Observed here too, so that a failure before the end leaves no rejection unhandled.
          link.catch(() => {})
          links.push(link)
        }
        const to = inbox?.address ?? `reader-${n}@example.com`
        const target = sandboxes[n % sandboxes.length]!
        const response = await target.send({
          template: 'link',
          from: 'shop@acme.test',
          to,
          subject: 'Hi',
          templateVariables: { n },
        })
        expect(response.status).toBe(201)
        sent.push((await jsonOf(response)).id)
      }
    }
    let sending = true
    const load = Promise.all(Array.from({ length: SENDERS }, sender)).finally(() => {
      sending = false
    })
    while (sending) await poll()
    await load
    // Everything is committed now: one more page takes up the rest.
    await poll()
    expect(sent).toHaveLength(MESSAGES)
    const twice = [...seen].filter(([, times]) => times > 1).map(([id]) => id)
    const missed = sent.filter((id) => !seen.has(id))
    expect({ missed, twice }).toEqual({ missed: [], twice: [] })
    expect(seen.size).toBe(MESSAGES)
    const found = await Promise.all(links)
    expect(found).toHaveLength(MESSAGES / INBOX_EVERY)
    for (const href of found) expect(href).toMatch(/^https:\/\/acme\.test\/confirm\/\d+$/)
    await kit.close()
  }, 120_000)
})

const PROJECTS = {
  projects: { acme: { tokens: ['sandbox_acme_1'] }, billing: { tokens: ['sandbox_billing_1'] } },
  admin: { tokens: ['sandbox_admin_1'] },
}

onEachStore((store) => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox(TEMPLATES, { ...(await store.options()), projects: PROJECTS })
  })
  afterAll(() => sandbox?.close())

  const send = async (token: string) => {
    const body = { template: 'link', from: 'a@acme.test', to: 'x@example.com', subject: 'Hi' }
    const response = await sandbox.send({ ...body, templateVariables: { n: 1 } }, token)
    expect(response.status).toBe(201)
    return (await jsonOf(response)).id as string
  }
  const page = (token: string, query = ''): Promise<Page> =>
    jsonOf(sandbox.api(`/_sandbox/api/messages?fields=summary${query}`, { auth: token }))

  it("a project's cursor does not move with another project's sends", async () => {
    const empty = (await page('sandbox_billing_1')).cursor
    await send('sandbox_acme_1')
    expect((await page('sandbox_billing_1')).cursor).toBe(empty)
    const own = await send('sandbox_billing_1')
    const before = (await page('sandbox_billing_1')).cursor
    expect(before).not.toBe(empty)
    await send('sandbox_acme_1')
    await send('sandbox_acme_1')
    expect((await page('sandbox_billing_1')).cursor).toBe(before)
    expect((await page('sandbox_billing_1', `&after=${empty}`)).messages.map((m) => m.id)).toEqual([
      own,
    ])
    // An admin's list of one project counts that project's; of all, every project's.
    expect((await page('sandbox_admin_1', '&project=billing')).cursor).toBe(before)
    expect((await page('sandbox_admin_1')).cursor).not.toBe(before)
  })
})
