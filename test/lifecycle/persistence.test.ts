import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startSendbox, type MessageRecord, type Sendbox } from '../../src/index.js'
import { tempDir, TOKEN, writeFiles } from '../helpers/sandbox.js'

/** Delivery states and suppressions in the log (docs/log.md, docs/delivery.md): after a restart, after compaction. */

const dirs: string[] = []
const open: Sendbox[] = []
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.close()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function setup() {
  const dir = await tempDir('sendbox-lifecycle-')
  dirs.push(dir)
  await writeFiles(join(dir, 'templates'), {
    'welcome.liquid': '<p>Hi</p><a href="https://acme.test/x">x</a>',
  })
  const db = join(dir, 'log.jsonl')
  const start = async (extra: Parameters<typeof startSendbox>[0] = {}) => {
    const sandbox = await startSendbox({
      port: 0,
      db,
      templates: join(dir, 'templates'),
      fixtures: join(dir, 'fixtures'),
      ...extra,
    })
    open.push(sandbox)
    return sandbox
  }
  const stop = async (sandbox: Sendbox) => {
    open.splice(open.indexOf(sandbox), 1)
    await sandbox.close()
  }
  return { db, start, stop }
}

async function send(sandbox: Sendbox, to: string | string[]): Promise<string> {
  const response = await fetch(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'welcome', from: 'hello@acme.test', to, subject: 'Hi' }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
const strip = (records: MessageRecord[]) =>
  records.map(({ id, status, recipients }) => ({ id, status, recipients }))

describe('states in the log', () => {
  it('are small event lines appended after the record, never a rewrite of it', async () => {
    const { db, start } = await setup()
    const sandbox = await start()
    const id = await send(sandbox, ['ada@example.com', 'bob+complaint@example.com'])
    await sandbox.waitForMessage({ status: 'complained' })
    const entries = await lines(db)
    const records = entries.filter((e) => e.id === id && !('op' in e))
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      status: 'sent',
      recipients: [{ status: 'sent' }, { status: 'sent' }],
    })
    const events = entries.filter((e) => e.op === 'events')
    expect(events).toEqual([
      {
        op: 'events',
        id,
        events: [
          expect.objectContaining({ recipient: 0, type: 'delivered' }),
          expect.objectContaining({ recipient: 1, type: 'delivered' }),
        ],
      },
      { op: 'events', id, events: [expect.objectContaining({ recipient: 1, type: 'complained' })] },
    ])
    expect(entries.filter((e) => e.op === 'suppress')).toEqual([
      expect.objectContaining({ address: 'bob+complaint@example.com', reason: 'complained' }),
    ])
    // Each event line is small: no HTML, no variables.
    for (const line of (await readFile(db, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"op":"events"')))
      expect(line.length).toBeLessThan(300)
  })

  it('survive a restart, and compaction keeps the latest states (and the suppressions, not the event lines)', async () => {
    const { db, start, stop } = await setup()
    const first = await start()
    const ids = [
      await send(first, 'ada@example.com'),
      await send(first, 'bob+bounce@example.com'),
      await send(first, 'carol+softbounce@example.com'),
      await send(first, ['dan+spam@example.com', 'erin@example.com']),
    ]
    await first.waitForMessage({ to: 'dan+spam', status: 'complained' })
    await first.waitForMessage({ to: 'carol', status: 'delivered' })
    await first.waitForMessage({ to: 'bob', status: 'bounced' })
    const clicked = await first.simulate(ids[0]!, { type: 'clicked', url: 'https://acme.test/x' })
    expect(clicked.recipients[0]!.events.at(-1)).toMatchObject({ type: 'clicked', simulated: true })
    const before = strip(await first.messages())
    const suppressions = await first.suppressions()
    expect(suppressions.map((s) => s.address)).toEqual([
      'dan+spam@example.com',
      'bob+bounce@example.com',
    ])
    expect((await lines(db)).some((e) => e.op === 'events')).toBe(true)
    await stop(first)

    const second = await start()
    expect(strip(await second.messages())).toEqual(before)
    expect(await second.suppressions()).toEqual(suppressions)
    // The restart compacted the log: every record holds its states, no event line is left.
    const entries = await lines(db)
    expect(entries.filter((e) => e.op === 'events')).toEqual([])
    expect(entries.filter((e) => e.op === 'suppress')).toHaveLength(2)
    expect(
      entries
        .filter((e) => 'recipients' in e)
        .map((e) => e.status)
        .sort(),
    ).toEqual(['bounced', 'complained', 'delivered', 'delivered'])
    // Nothing is replayed twice: no step of a settled message runs again.
    expect(await second.webhooks()).toEqual([])
    await stop(second)
    const third = await start()
    expect(strip(await third.messages())).toEqual(before)
    // The suppression still applies after the restarts.
    await send(third, 'bob+bounce@example.com')
    expect(
      (await third.waitForMessage({ to: 'bob', status: 'suppressed' })).recipients[0]!.status,
    ).toBe('suppressed')
  })

  it('a removed suppression stays removed after a restart', async () => {
    const { start, stop } = await setup()
    const first = await start()
    await send(first, ['x+bounce@example.com', 'y+bounce@example.com'])
    await first.waitForMessage({ status: 'bounced' })
    await first.unsuppress({ address: 'x+bounce@example.com' })
    await first.clear()
    await stop(first)
    const second = await start()
    expect((await second.suppressions()).map((s) => s.address)).toEqual(['y+bounce@example.com'])
  })

  it('steps a stopped server did not get to are taken up at the next start', async () => {
    const { start, stop } = await setup()
    const first = await start({ deliveryDelay: 60_000 })
    const id = await send(first, ['ada@example.com', 'bob+softbounce@example.com'])
    expect((await first.messages())[0]!.status).toBe('sent')
    await stop(first)
    const second = await start()
    const done = await second.waitForMessage({ status: 'delivered', timeout: 5000 })
    expect(done.id).toBe(id)
    expect(done.recipients.map((r) => r.events.map((e) => e.type))).toEqual([
      ['sent', 'delivered'],
      ['sent', 'deferred', 'delivered'],
    ])
  })

  it('a soft bounce stopped between its two steps ends delivered after the restart', async () => {
    const { start, stop } = await setup()
    const first = await start({ deliveryDelay: 100 })
    await send(first, 'bob+softbounce@example.com')
    await first.waitForMessage({ status: 'deferred', timeout: 5000 })
    await stop(first)
    const second = await start({ deliveryDelay: 0 })
    const done = await second.waitForMessage({ status: 'delivered', timeout: 5000 })
    expect(done.recipients[0]!.events.map((e) => e.type)).toEqual(['sent', 'deferred', 'delivered'])
  })
})
