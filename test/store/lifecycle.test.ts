import { appendFile, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openMessageLog, overallStatus } from '../../src/store/index.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

/** Delivery events and suppressions in the log: appended as lines, folded on replay, kept by compaction. */

const at = '2026-11-21T10:00:01.000Z'
const lines = async (file: string) => (await readFile(file, 'utf8')).trimEnd().split('\n')

describe('overallStatus', () => {
  it.each([
    [[], 'sent'],
    [['sent', 'delivered'], 'sent'],
    [['delivered', 'delivered'], 'delivered'],
    [['delivered', 'deferred'], 'deferred'],
    [['deferred', 'suppressed'], 'suppressed'],
    [['suppressed', 'complained', 'deferred'], 'complained'],
    [['complained', 'bounced', 'delivered'], 'bounced'],
  ] as const)('%j → %s', (statuses, expected) => {
    expect(overallStatus(statuses.map((status) => ({ status })))).toBe(expected)
  })
})

describe('events', () => {
  it('addEvents appends one small line, returns a new record and leaves the old one as it was', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const log = await openMessageLog({ file, warn: () => {} })
    const record = makeRecord({
      id: 'a',
      to: [
        { name: null, address: 'x@example.com' },
        { name: null, address: 'y@example.com' },
      ],
    })
    await log.append(record)
    const next = await log.addEvents('a', [
      { recipient: 0, type: 'delivered', at },
      { recipient: 1, type: 'bounced', at, bounce: { type: 'hard' } },
    ])
    expect(next).not.toBe(record)
    expect(record.status).toBe('sent')
    expect(record.recipients.map((r) => r.events.length)).toEqual([1, 1])
    expect(next!.status).toBe('bounced')
    expect(next!.recipients.map((r) => r.status)).toEqual(['delivered', 'bounced'])
    expect(log.get('a')).toBe(next)
    expect(log.list({ status: 'bounced' }).messages).toEqual([next])
    expect(
      await log.addEvents('missing', [{ recipient: 0, type: 'delivered', at }]),
    ).toBeUndefined()
    const written = await lines(file)
    expect(JSON.parse(written.at(-1)!)).toEqual({
      op: 'events',
      id: 'a',
      events: [
        { recipient: 0, type: 'delivered', at },
        { recipient: 1, type: 'bounced', at, bounce: { type: 'hard' } },
      ],
    })
    await log.close()
  })

  it('replays event lines onto their records; lines of deleted messages, or for recipients a record lacks, are skipped', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const a = makeRecord({ id: 'a' })
    const b = makeRecord({ id: 'b' })
    const text = [
      HEADER,
      JSON.stringify(a),
      JSON.stringify(b),
      JSON.stringify({ op: 'events', id: 'a', events: [{ recipient: 0, type: 'deferred', at }] }),
      JSON.stringify({ op: 'events', id: 'b', events: [{ recipient: 0, type: 'delivered', at }] }),
      JSON.stringify({ op: 'delete', id: 'b' }),
      JSON.stringify({ op: 'events', id: 'b', events: [{ recipient: 0, type: 'bounced', at }] }),
      JSON.stringify({
        op: 'events',
        id: 'a',
        events: [
          { recipient: 5, type: 'bounced', at },
          { recipient: 0, type: 'delivered', at },
        ],
      }),
      JSON.stringify({
        op: 'events',
        id: 'a',
        events: [{ recipient: 0, type: 'opened', at, simulated: true }],
      }),
    ].join('\n')
    await appendFile(file, `${text}\n`)
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.list().messages.map((m) => m.id)).toEqual(['a'])
    const replayed = log.get('a')!
    expect(replayed.status).toBe('delivered')
    expect(replayed.recipients[0]!.events.map((e) => e.type)).toEqual([
      'sent',
      'deferred',
      'delivered',
      'opened',
    ])
    await log.close()
    // Compacted at open: the record holds its states, the event lines are gone.
    const compacted = await lines(file)
    expect(compacted).toHaveLength(2)
    expect(JSON.parse(compacted[1]!)).toMatchObject({ id: 'a', status: 'delivered' })
  })

  it('a malformed event line refuses the log, untouched, like any other bad line', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const text = `${HEADER}\n${JSON.stringify(makeRecord({ id: 'a' }))}\n${JSON.stringify({ op: 'events', id: 'a', events: [{ type: 'delivered' }] })}\n${JSON.stringify(makeRecord({ id: 'b' }))}\n`
    await appendFile(file, text)
    await expect(openMessageLog({ file, warn: () => {} })).rejects.toMatchObject({
      code: 'log_invalid',
    })
    expect(await readFile(file, 'utf8')).toBe(text)
  })

  it('a log written before delivery states (records without recipients) opens with every recipient sent', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const { recipients: _r, ...old } = makeRecord({ id: 'old' })
    await appendFile(file, `${HEADER}\n${JSON.stringify(old)}\n`)
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.get('old')!.recipients).toEqual([
      { address: 'ada@example.com', status: 'sent', events: [{ type: 'sent', at: old.createdAt }] },
    ])
    await log.close()
  })
})

describe('suppressions', () => {
  const entry = (
    address: string,
    project = 'p1',
    reason: 'bounced' | 'complained' = 'bounced',
  ) => ({ address, project, reason, createdAt: at })

  it('suppress, list newest first, find by project and address (case-insensitively), unsuppress by filter', async () => {
    const log = await openMessageLog({ file: null })
    await log.suppress(entry('A@example.com'))
    await log.suppress(entry('b@example.com'))
    await log.suppress(entry('a@example.com', 'p2', 'complained'))
    expect(log.suppressions().map((s) => `${s.project}:${s.address}`)).toEqual([
      'p2:a@example.com',
      'p1:b@example.com',
      'p1:a@example.com',
    ])
    expect(log.suppression('p1', 'A@EXAMPLE.COM')?.reason).toBe('bounced')
    expect(log.suppression('p3', 'a@example.com')).toBeUndefined()
    // Again: refreshed, and newest.
    await log.suppress(entry('a@example.com', 'p1', 'complained'))
    expect(log.suppressions({ project: 'p1' }).map((s) => `${s.address}:${s.reason}`)).toEqual([
      'a@example.com:complained',
      'b@example.com:bounced',
    ])
    expect(
      (await log.unsuppress({ address: 'A@example.com' })).map((s) => s.project).sort(),
    ).toEqual(['p1', 'p2'])
    expect(await log.unsuppress({ address: 'nobody@example.com' })).toEqual([])
    expect((await log.unsuppress()).map((s) => s.address)).toEqual(['b@example.com'])
    expect(log.suppressions()).toEqual([])
  })

  it('survive a clear and a reopen; compaction keeps them (and a removal stays removed)', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const first = await openMessageLog({ file, warn: () => {} })
    await first.append(makeRecord({ id: 'a' }))
    await first.suppress(entry('x@example.com'))
    await first.suppress(entry('y@example.com'))
    await first.unsuppress({ address: 'x@example.com', project: 'p1' })
    await first.clear()
    expect(first.suppressions().map((s) => s.address)).toEqual(['y@example.com'])
    await first.close()
    const text = await lines(file)
    // The clean stop compacted: the header and the one suppression left.
    expect(text).toEqual([HEADER, JSON.stringify({ op: 'suppress', ...entry('y@example.com') })])
    const second = await openMessageLog({ file, warn: () => {} })
    expect(second.suppressions().map((s) => s.address)).toEqual(['y@example.com'])
    expect(second.count()).toBe(0)
    await second.close()
    // No dead line, nothing rewritten: the file is as it was.
    expect(await lines(file)).toEqual(text)
  })
})

describe('compaction and event lines', () => {
  it('weighs dead lines by bytes: a run of small event lines does not rewrite a log of whole messages', async () => {
    const file = path.join(await tempDir(), 'log.jsonl')
    const log = await openMessageLog({ file, maxMessages: 50, warn: () => {} })
    // 50 messages of a realistic size (a rendered email is kilobytes), then 150 event lines: more
    // dead lines than live ones, but a sliver of the bytes. Counting lines rewrote the file here.
    const html = '<p>x</p>'.repeat(400)
    for (let i = 0; i < 50; i++) await log.append(makeRecord({ id: `m${i}`, html }))
    const inode = (await stat(file)).ino
    for (let i = 0; i < 150; i++)
      await log.addEvents(`m${i % 50}`, [{ recipient: 0, type: 'opened', at }])
    expect((await stat(file)).ino).toBe(inode)
    expect(await lines(file)).toHaveLength(1 + 50 + 150)
    // Dropped messages are dead bytes that count: once they outweigh the live ones, it compacts.
    for (let i = 50; i < 120; i++) await log.append(makeRecord({ id: `m${i}`, html }))
    await log.delete('m119') // a later write, queued behind the compaction the appends triggered
    expect((await stat(file)).ino).not.toBe(inode)
    await log.close()
  })
})
