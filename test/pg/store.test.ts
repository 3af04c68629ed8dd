import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js'
import { openPostgresStore, storeName } from '../../src/store/postgres/index.js'
import { describePg, freshDatabase, sqlOn } from '../helpers/postgres.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'
import { jsonOf } from '../helpers/http.js'
import { messageRecord } from '../helpers/records.js'

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi {{ name }}\n---\n<p>Hello {{ name }}</p>' }
const send = (sandbox: TestSandbox, to: string | string[], subject = 'Hello there') =>
  sandbox.send({
    template: 'hello',
    from: 'Shop <shop@acme.test>',
    to,
    subject,
    templateVariables: { name: 'Ada' },
  })

describePg('the PostgreSQL store', () => {
  let url: string
  let sandbox: TestSandbox
  beforeAll(async () => {
    url = await freshDatabase()
    sandbox = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
  })
  afterAll(() => sandbox?.close())

  it('stores a send as a row and answers the inspector from queries', async () => {
    const sent = await send(sandbox, ['Ada Lovelace <Ada@Example.com>', 'bob@example.com'])
    expect(sent.status).toBe(201)
    const { id } = await jsonOf(sent)
    const record = await jsonOf(sandbox.api(`/_sandbox/api/messages/${id}`))
    expect(record).toMatchObject({ id, subject: 'Hello there', to: [{ name: 'Ada Lovelace' }, {}] })
    // The record's keys come out in the log's order, whatever JSONB keeps.
    expect(Object.keys(record).slice(0, 4)).toEqual(['id', 'status', 'createdAt', 'project'])
    const sql = await sqlOn(url)
    try {
      const rows = await sql`SELECT id, to_lc, recipients FROM sendbox_messages`
      expect(rows).toEqual([
        {
          id,
          to_lc: 'ada lovelace <ada@example.com>\u0001bob@example.com',
          recipients: ['ada@example.com', 'bob@example.com'],
        },
      ])
      const [{ version }] = (await sql`SELECT version FROM sendbox_schema`) as unknown as [
        { version: number },
      ]
      expect(version).toBe(SCHEMA_VERSION)
    } finally {
      await sql.end()
    }
  })

  it('filters, pages and counts as the log does', async () => {
    await sandbox.clear()
    for (let i = 0; i < 12; i++)
      expect((await send(sandbox, `user${i}@example.com`, `Order ${i}`)).status).toBe(201)
    const list = (query: string) => jsonOf(sandbox.api(`/_sandbox/api/messages?${query}`))
    expect((await list('to=USER1')).total).toBe(3) // user1, user10, user11
    expect((await list('recipient=user1@example.com')).total).toBe(1)
    expect((await list('subject=order%201&limit=1')).messages[0].subject).toBe('Order 11')
    const page = await list('limit=5&offset=5')
    expect(page.total).toBe(12)
    expect(page.messages.map((m: { subject: string }) => m.subject)).toEqual([
      'Order 6',
      'Order 5',
      'Order 4',
      'Order 3',
      'Order 2',
    ])
    // A LIKE wildcard in a filter is a character, not a wildcard.
    expect((await list('to=user_')).total).toBe(0)
    expect(
      (await list('status=sent&template=hel')).total + (await list('status=delivered')).total,
    ).toBe(12)
    const health = await jsonOf(sandbox.api('/_sandbox/api/health'))
    expect(health.messages).toBe(12)
  })

  it('waits, delivers, bounces and suppresses through the database', async () => {
    const waiting = sandbox.waitForMessage({ to: 'late@example.com', after: 'now', timeout: 5000 })
    await send(sandbox, 'late@example.com')
    expect((await waiting).to[0]!.address).toBe('late@example.com')
    const bounced = await jsonOf(send(sandbox, 'bounce@example.com'))
    const done = await sandbox.waitForMessage({
      recipient: 'bounce@example.com',
      status: 'bounced',
    })
    expect(done.id).toBe(bounced.id)
    expect((await sandbox.suppressions()).map((s) => s.address)).toContain('bounce@example.com')
    const again = await jsonOf(send(sandbox, 'bounce@example.com'))
    const suppressed = await sandbox.waitForMessage({
      recipient: 'bounce@example.com',
      status: 'suppressed',
    })
    expect(suppressed.id).toBe(again.id)
    await sandbox.unsuppress({ address: 'bounce@example.com' })
    expect(await sandbox.suppressions()).toEqual([])
  })

  it("lists the suppressions of one delivery step in the recipients' order, as the log does", async () => {
    // One step bounces every recipient: their suppressions were separate statements side by
    // side, numbered in whatever order they reached the database (test/pg/stores-agree.test.ts
    // found the order the other way round from the log's). Newest first: the last recipient.
    const to = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => `${name}-order+bounce@example.com`)
    const { id } = await jsonOf(send(sandbox, to))
    await sandbox.waitForMessage({ recipient: to[5]!, status: 'bounced' })
    const listed = (await sandbox.suppressions()).filter((s) => s.messageId === id)
    expect(listed.map((s) => s.address)).toEqual(to.toReversed())
    // An address twice in one step: listed once, where its later suppression puts it.
    const twice = ['y-order+bounce@example.com', 'z-order+bounce@example.com']
    const again = await jsonOf(send(sandbox, [twice[0]!, twice[1]!, twice[0]!, 'w+bounce@x.test']))
    await sandbox.waitForMessage({ recipient: 'w+bounce@x.test', status: 'bounced' })
    const relisted = (await sandbox.suppressions()).filter((s) => s.messageId === again.id)
    expect(relisted.map((s) => s.address)).toEqual(['w+bounce@x.test', twice[0], twice[1]])
    await sandbox.unsuppress()
  })

  it('deletes and clears', async () => {
    const { id } = await jsonOf(send(sandbox, 'gone@example.com'))
    expect((await sandbox.api(`/_sandbox/api/messages/${id}`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await sandbox.api(`/_sandbox/api/messages/${id}`)).status).toBe(404)
    await sandbox.clear({ to: 'user' })
    expect(await sandbox.messages({ to: 'user' })).toEqual([])
  })

  it('does not fail a read when an administrator ends every connection (57P01)', async () => {
    expect((await send(sandbox, 'dropped@example.com')).status).toBe(201)
    const total = (await jsonOf(sandbox.api('/_sandbox/api/messages'))).total
    const admin = await sqlOn(url)
    const reads = () =>
      Promise.all(Array.from({ length: 10 }, () => sandbox.api('/_sandbox/api/messages?limit=1')))
    try {
      for (let round = 0; round < 5; round++) {
        // Connections open in the pool: ten reads at once.
        expect((await reads()).map((r) => r.status)).toEqual(Array(10).fill(200))
        const [{ ended }] = (await admin`
          SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()`) as unknown as [
          { ended: number },
        ]
        expect(ended).toBeGreaterThan(0)
        // At once, before the client has seen its connections go: each read is tried again.
        const answers = await reads()
        const statuses = await Promise.all(
          answers.map(async (r) => (r.status === 200 ? 200 : `${r.status} ${await r.text()}`)),
        )
        expect(statuses).toEqual(Array(10).fill(200))
        expect((await jsonOf(sandbox.api('/_sandbox/api/messages'))).total).toBe(total)
      }
    } finally {
      await admin.end()
    }
  })
})

describePg('several sandboxes on one database', () => {
  it('count --max-messages over the whole sandbox', async () => {
    const url = await freshDatabase()
    const options = { memory: undefined, store: url, maxMessages: 5 }
    const [a, b] = [
      await startTestSandbox(TEMPLATES, options),
      await startTestSandbox(TEMPLATES, options),
    ]
    try {
      for (let i = 0; i < 4; i++) {
        expect((await send(a, `a${i}@example.com`)).status).toBe(201)
        expect((await send(b, `b${i}@example.com`)).status).toBe(201)
      }
      const seen = await a.messages()
      expect(seen.map((m) => m.to[0]!.address)).toEqual([
        'b3@example.com',
        'a3@example.com',
        'b2@example.com',
        'a2@example.com',
        'b1@example.com',
      ])
      expect((await b.messages()).length).toBe(5)
      expect((await jsonOf(b.api('/_sandbox/api/health'))).dropped).toBe(3)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('trims exactly under concurrent sends through two processes, and counts what it holds', async () => {
    const url = await freshDatabase()
    const options = { memory: undefined, store: url, maxMessages: 20 }
    const [a, b] = [
      await startTestSandbox(TEMPLATES, options),
      await startTestSandbox(TEMPLATES, options),
    ]
    const sql = await sqlOn(url)
    try {
      const sends = Array.from({ length: 120 }, (_, i) => send(i % 2 ? a : b, `t${i}@example.com`))
      expect((await Promise.all(sends)).map((r) => r.status)).toEqual(Array(120).fill(201))
      const health = await jsonOf(a.api('/_sandbox/api/health'))
      expect({ messages: health.messages, dropped: health.dropped }).toEqual({
        messages: 20,
        dropped: 100,
      })
      // The count the trim reads is the table's own, and follows a delete and a clear.
      const counted = async () => {
        const [row] = (await sql`
          SELECT (SELECT count(*)::int FROM sendbox_messages) AS rows,
                 (SELECT value::int FROM sendbox_counters WHERE name = 'stored') AS stored`) as unknown as [
          { rows: number; stored: number },
        ]
        return row
      }
      expect(await counted()).toEqual({ rows: 20, stored: 20 })
      const [first] = await b.messages()
      expect(
        (await b.api(`/_sandbox/api/messages/${first!.id}`, { method: 'DELETE' })).status,
      ).toBe(204)
      expect(await counted()).toEqual({ rows: 19, stored: 19 })
      expect((await a.api('/_sandbox/api/messages', { method: 'DELETE' })).status).toBe(204)
      expect(await counted()).toEqual({ rows: 0, stored: 0 })
    } finally {
      await sql.end()
      await Promise.all([a.close(), b.close()])
    }
  })

  it('refuses a database a newer sendbox wrote, and opens one it wrote itself again', async () => {
    const url = await freshDatabase()
    const first = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
    await first.close()
    const again = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
    await again.close()
    const sql = await sqlOn(url)
    await sql`UPDATE sendbox_schema SET version = 99`
    await sql.end()
    await expect(
      startTestSandbox(TEMPLATES, { memory: undefined, store: url }),
    ).rejects.toMatchObject({
      code: 'store_newer',
      message: expect.stringContaining(
        `newer sendbox (format 99; this one reads up to ${SCHEMA_VERSION})`,
      ),
    })
  })

  it('upgrades a database an older sendbox wrote, keeping its messages', async () => {
    const url = await freshDatabase()
    const first = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
    expect((await send(first, 'kept@example.com')).status).toBe(201)
    await first.close()
    // What the first format was: no faults table, no shared work, webhooks or rejections, and
    // a message's html and text inside its record.
    const sql = await sqlOn(url)
    await sql`DROP TABLE sendbox_faults, sendbox_work, sendbox_webhooks, sendbox_rejections`
    await sql`ALTER TABLE sendbox_messages ALTER COLUMN record TYPE jsonb USING record::jsonb`
    await sql`ALTER TABLE sendbox_suppressions ALTER COLUMN entry TYPE jsonb USING entry::jsonb`
    await sql`UPDATE sendbox_messages
      SET record = record || jsonb_build_object('html', html::jsonb, 'text', text::jsonb)`
    await sql`ALTER TABLE sendbox_messages DROP COLUMN html, DROP COLUMN text`
    await sql`DROP TRIGGER sendbox_messages_added ON sendbox_messages`
    await sql`DROP TRIGGER sendbox_messages_removed ON sendbox_messages`
    await sql`DROP TRIGGER sendbox_messages_emptied ON sendbox_messages`
    await sql`DELETE FROM sendbox_counters WHERE name = 'stored'`
    await sql`UPDATE sendbox_schema SET version = 1`
    // The start that upgrades says so in one line; the next says nothing.
    const said: string[] = []
    for (let start = 0; start < 2; start++) {
      const store = await openPostgresStore({ url, maxMessages: 100, info: (l) => said.push(l) })
      await store.close()
    }
    expect(said).toEqual([
      `Upgraded the PostgreSQL store ${storeName(url)} from format 1 to format ${SCHEMA_VERSION}.`,
    ])
    const upgraded = await startTestSandbox(TEMPLATES, { memory: undefined, store: url })
    try {
      const [kept] = await upgraded.messages()
      expect(kept).toMatchObject({
        to: [{ address: 'kept@example.com' }],
        html: '<p>Hello Ada</p>',
      })
      expect(kept!.text).toContain('Hello Ada')
      const [row] = await sql`SELECT record::jsonb ? 'html' AS inside, html FROM sendbox_messages`
      expect(row).toEqual({ inside: false, html: '<p>Hello Ada</p>' })
      // The count the trim reads starts from what the database held, and follows every send.
      expect((await jsonOf(upgraded.api('/_sandbox/api/health'))).messages).toBe(1)
      expect((await send(upgraded, 'next@example.com')).status).toBe(201)
      expect((await jsonOf(upgraded.api('/_sandbox/api/health'))).messages).toBe(2)
      expect(
        (await upgraded.api('/_sandbox/api/faults', { method: 'POST', json: { status: 503 } }))
          .status,
      ).toBe(201)
      const [{ version }] = (await sql`SELECT version FROM sendbox_schema`) as unknown as [
        { version: number },
      ]
      expect(version).toBe(SCHEMA_VERSION)
    } finally {
      await sql.end()
      await upgraded.close()
    }
  })
})

describePg('sendbox serve --store', () => {
  it('exits 1 naming the host, never the password, when the database cannot be reached', async () => {
    // A port nothing listens on: the cluster's own port plus one is as good as any free one.
    const result = await runCli(
      ['serve', '--port', '0', '--store', 'postgres://app:hunter2secret@127.0.0.1:1/sendbox'],
      { timeout: 30_000 },
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Cannot reach the PostgreSQL store 127.0.0.1:1/sendbox')
    expect(result.stdout + result.stderr).not.toContain('hunter2secret')
  })

  it.each([
    [['--db', 'x.jsonl'], '--db'],
    [['--memory'], '--memory'],
  ])('is a usage error with %j (exit 2)', async (extra, flag) => {
    const result = await runCli([
      'serve',
      '--store',
      'postgres://a:pw-secret@127.0.0.1/x',
      ...extra,
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`--store: cannot go with ${flag}`)
    expect(result.stderr).not.toContain('pw-secret')
  })
})

describePg('changes to one message from two processes at once', () => {
  it('every change lands, from a record read before the others changed it too', async () => {
    const url = await freshDatabase()
    const { openPostgresStore } = await import('../../src/store/postgres/index.js')
    const [a, b] = await Promise.all([
      openPostgresStore({ url, maxMessages: 100 }),
      openPostgresStore({ url, maxMessages: 100 }),
    ])
    try {
      const at = new Date().toISOString()
      const { id } = messageRecord('ada@example.com', at)
      await a.append(messageRecord('ada@example.com', at))
      // Each process read the message once, before any change: every change but the first
      // starts from a record that is no longer the row's, and must read it again.
      const [baseA, baseB] = [await a.get(id), await b.get(id)]
      const opened = (store: typeof a, base: typeof baseA, n: number) =>
        store.addEvents(
          id,
          [{ recipient: 0, type: 'opened', at, url: `https://x.test/${n}` }],
          base,
        )
      await Promise.all(
        Array.from({ length: 20 }, (_, n) => opened(n % 2 ? a : b, n % 2 ? baseA : baseB, n)),
      )
      const events = (await a.get(id))!.recipients[0]!.events
      expect(events.filter((e) => e.type === 'opened')).toHaveLength(20)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })
})

describePg('sends stored together in one statement', () => {
  it('a message the database refuses fails alone: the sends that shared its statement are stored', async () => {
    const url = await freshDatabase()
    const { openPostgresStore } = await import('../../src/store/postgres/index.js')
    const store = await openPostgresStore({ url, maxMessages: 100 })
    try {
      const record = (n: number) => ({ ...messageRecord(`s${n}@example.com`), id: `msg_${n}` })
      await store.append(record(1))
      // The first runs at once; the three made while it runs share the next statement, which
      // PostgreSQL refuses for msg_1's second copy (its id is taken).
      const first = store.append(record(2))
      const shared = [record(1), record(3), record(4)].map((r) =>
        store.append(r).then(
          () => 'stored',
          (error: { code?: string }) => error.code,
        ),
      )
      await first
      expect(await Promise.all(shared)).toEqual(['23505', 'stored', 'stored'])
      expect((await store.list()).messages.map((m) => m.id)).toEqual([
        'msg_4',
        'msg_3',
        'msg_2',
        'msg_1',
      ])
    } finally {
      await store.close()
    }
  })
})
