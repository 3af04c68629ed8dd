import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { jsonOf } from '../helpers/http.js'
import { sql } from '../../src/store/postgres/client.js'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/**
 * Messages that commit out of seq order (docs/team.md, format 6). A statement that adds
 * messages draws each one's seq as it writes it; when a second statement drew a higher seq and
 * committed while the first was still writing, a list answered the higher seq as its cursor,
 * and the first statement's messages, committed after, were behind that cursor and on no page.
 */

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello</p>' }

describePg('a cursor when messages commit out of seq order', () => {
  let url: string
  let sandbox: TestSandbox
  let slow: pg.Client
  let fast: pg.Client
  beforeAll(async () => {
    url = await freshDatabase()
    sandbox = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
    slow = await connectTo(url)
    fast = await connectTo(url)
  })
  afterAll(async () => {
    await slow?.end()
    await fast?.end()
    await sandbox?.close()
  })

  /** Copies of the row of `from` as `ids`, in one statement; the second row waits `pause` s first. */
  const copies = (client: pg.Client, from: string, ids: string[], pause = 0) =>
    client.query(sql`
    INSERT INTO sendbox_messages (id, created_at, project, status, template_lc, subject_lc,
      from_lc, to_lc, recipients, bytes, html, text, record)
    SELECT c.id, m.created_at, m.project, m.status, m.template_lc, m.subject_lc, m.from_lc,
      m.to_lc, m.recipients, m.bytes, m.html, m.text,
      (m.record::jsonb || jsonb_build_object('id', c.id))::json
    FROM sendbox_messages m,
      LATERAL (SELECT * FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)
               WHERE n = 1 OR pg_sleep(${pause})::text = '') AS c
    WHERE m.id = ${from}`)

  const page = async (after: string) =>
    (await jsonOf(
      sandbox.api(`/_sandbox/api/messages?fields=summary&limit=100&after=${after}`),
    )) as {
      messages: { id: string }[]
      cursor: string
    }

  it('a reader following the cursor sees the messages of a statement that commits after a later one', async () => {
    const sent = await sandbox.send({
      template: 'hello',
      from: 'a@acme.test',
      to: 'x@example.com',
      subject: 'Hi',
    })
    const { id } = await jsonOf(sent)
    const start = await page('0')
    const seqNow = async () =>
      (await fast.query('SELECT last_value::text AS value FROM sendbox_messages_seq_seq')).rows[0]
        .value
    const last = await seqNow()
    // The slow statement writes its first message, then takes a second before its second.
    const slowly = copies(slow, id, ['msg_slow_1', 'msg_slow_2'], 1.5)
    while ((await seqNow()) === last) {
      // Until it has drawn its first seq.
    }
    // Meanwhile another statement adds one, and a reader lists.
    await copies(fast, id, ['msg_fast'])
    const during = await page(start.cursor)
    await slowly
    const after = await page(during.cursor)
    const seen = [...during.messages, ...after.messages].map((m) => m.id).sort()
    expect(seen).toEqual(['msg_fast', 'msg_slow_1', 'msg_slow_2'])
  })
})
