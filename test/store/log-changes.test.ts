import { describe, expect, it } from 'vitest'
import { LogWriteError } from '../../src/store/errors.js'
import type { LogData, LogEntry } from '../../src/store/log-format.js'
import { createLogHealth } from '../../src/store/log-health.js'
import { createLogWrites, MIN_DEAD_LINES } from '../../src/store/log-writes.js'
import { createRecordChanges } from '../../src/store/record-changes.js'
import { createRecordIndex } from '../../src/store/record-index.js'
import { createSuppressionChanges } from '../../src/store/suppression-changes.js'
import { createSuppressionList } from '../../src/store/suppression-list.js'
import type { Suppression } from '../../src/store/types.js'
import { errnoError } from './faulty-fs.js'
import { makeRecord } from './helpers.js'

const FILE = '/x/log.jsonl'
const full = () => new LogWriteError(FILE, errnoError('ENOSPC', 'write'))

/** An adapter whose lines are recorded, and fail while `failing` is set; `lines`/`bytes` as set. */
function fakeAdapter() {
  const state = { failing: false, holding: false, lines: 0, bytes: 0 }
  const written: LogEntry[][] = []
  /** While `holding`: the lines' writes, each resolved by the test. */
  const held: (() => void)[] = []
  return {
    state,
    written,
    held,
    file: FILE,
    append(entries: readonly LogEntry[]): Promise<void> {
      written.push(entries.slice())
      if (state.holding) return new Promise<void>((resolve) => held.push(resolve))
      return state.failing ? Promise.reject(full()) : Promise.resolve()
    },
    derived() {},
    lines: () => state.lines,
    bytes: () => state.bytes,
  }
}

/** The parts of a log as createLog composes them, over a fake adapter. */
function parts(data: LogData = { records: [], suppressions: [] }, maxMessages = 100) {
  const adapter = fakeAdapter()
  const warnings: string[] = []
  const index = createRecordIndex(data.records, { maxMessages, maxBytes: Infinity })
  const suppressions = createSuppressionList(data)
  const health = createLogHealth(FILE, (w) => warnings.push(w))
  let compactions = 0
  let compactFails: Error | null = null
  const state = { closing: false }
  const writes = createLogWrites({
    adapter,
    data,
    index,
    health,
    warn: (w) => warnings.push(w),
    compact: async () => {
      compactions++
      if (compactFails) throw compactFails
    },
    closing: () => state.closing,
  })
  const assertOpen = () => {
    if (state.closing) throw new Error('closed')
  }
  return {
    adapter,
    data,
    index,
    suppressions,
    health,
    writes,
    warnings,
    state,
    compactions: () => compactions,
    failCompaction: (error: Error) => {
      compactFails = error
    },
    records: createRecordChanges({ adapter, data, index, writes, assertOpen }),
    suppressionChanges: createSuppressionChanges({ adapter, suppressions, writes, assertOpen }),
  }
}

const ids = (p: ReturnType<typeof parts>) => p.index.list().messages.map((r) => r.id)

describe('log-writes', () => {
  it('settle: an unwritten change is undone, the health says so, the caller hears', async () => {
    const p = parts()
    let undone = 0
    const error = await p.writes
      .settle(Promise.reject(full()), () => undone++)
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LogWriteError)
    expect(undone).toBe(1)
    expect(p.health.current().state).toBe('write_failed')
    await p.writes.settle(Promise.resolve(), () => undone++)
    expect(undone).toBe(1)
    expect(p.health.current().state).toBe('ok')
    expect(p.warnings.at(-1)).toMatch(/is written again/)
  })

  it('compacts only once dead lines are many and outweigh live bytes, and not while closing', async () => {
    const p = parts({ records: [makeRecord()], suppressions: [] })
    const live = p.index.bytes()
    p.adapter.state.lines = 1 + MIN_DEAD_LINES - 1
    p.adapter.state.bytes = live * 10
    p.writes.compactIfWorthwhile()
    expect(p.compactions()).toBe(0)
    p.adapter.state.lines = 1 + MIN_DEAD_LINES
    p.adapter.state.bytes = live * 2
    p.writes.compactIfWorthwhile()
    expect(p.compactions()).toBe(0)
    p.adapter.state.bytes = live * 2 + 1
    p.writes.compactIfWorthwhile()
    expect(p.compactions()).toBe(1)
    p.state.closing = true
    p.writes.compactIfWorthwhile()
    expect(p.compactions()).toBe(1)
  })

  it('a compaction that fails otherwise than writing is said on the console', async () => {
    const p = parts({ records: [makeRecord()], suppressions: [] })
    p.adapter.state.lines = 1 + MIN_DEAD_LINES
    p.adapter.state.bytes = Number.MAX_SAFE_INTEGER
    p.failCompaction(new Error('boom'))
    p.writes.compactIfWorthwhile()
    await expect.poll(() => p.warnings).toEqual([`Could not compact the message log ${FILE}: boom`])
    expect(p.health.current().state).toBe('ok')
  })
})

describe('record-changes', () => {
  it('a failed append leaves memory as it was: no new record, the one it replaced kept', async () => {
    const old = makeRecord()
    const p = parts({ records: [old], suppressions: [] })
    p.adapter.state.failing = true
    await expect(p.records.append(makeRecord())).rejects.toBeInstanceOf(LogWriteError)
    await expect(p.records.append({ ...old, subject: 'new' })).rejects.toThrow(/ENOSPC/)
    expect(ids(p)).toEqual([old.id])
    expect(p.index.get(old.id)).toBe(old)
    p.adapter.state.failing = false
    await p.records.append({ ...old, subject: 'new' })
    expect(p.index.get(old.id)?.subject).toBe('new')
    expect(p.adapter.written).toHaveLength(3)
  })

  it('drops the oldest past the limit only once the new line is written', async () => {
    const [a, b] = [makeRecord(), makeRecord()]
    const p = parts({ records: [a, b], suppressions: [] }, 2)
    p.adapter.state.failing = true
    await expect(p.records.append(makeRecord())).rejects.toThrow()
    expect(ids(p).sort()).toEqual([a.id, b.id].sort())
    p.adapter.state.failing = false
    const c = makeRecord()
    await p.records.append(c)
    expect(ids(p).sort()).toEqual([b.id, c.id].sort())
  })

  it('counts the limit without the records whose line is still queued', async () => {
    const [a, b] = [makeRecord(), makeRecord()]
    const p = parts({ records: [a, b], suppressions: [] }, 2)
    p.adapter.state.holding = true
    const [c, d] = [makeRecord(), makeRecord()]
    const appended = [p.records.append(c), p.records.append(d)]
    p.adapter.held[0]!()
    await appended[0]
    // d's line is not written yet: it does not count, so only a makes room for c.
    expect(ids(p).sort()).toEqual([b.id, c.id, d.id].sort())
    p.adapter.held[1]!()
    await appended[1]
    expect(ids(p).sort()).toEqual([c.id, d.id].sort())
  })

  it('delete and clear write one line each, and put back what they removed if it fails', async () => {
    const [a, b, c] = [makeRecord(), makeRecord({ template: 'reset' }), makeRecord()]
    const p = parts({ records: [a, b, c], suppressions: [] })
    expect(await p.records.delete('msg_none')).toBe(false)
    expect(p.adapter.written).toEqual([])
    p.adapter.state.failing = true
    await expect(p.records.delete(a.id)).rejects.toThrow()
    await expect(p.records.clear({ template: 'welcome' })).rejects.toThrow()
    expect([...p.index.all()]).toEqual([a, b, c])
    p.adapter.state.failing = false
    expect((await p.records.clear({ template: 'welcome' })).count).toBe(2)
    expect(p.adapter.written.at(-1)).toEqual([{ op: 'delete', ids: [a.id, c.id] }])
    expect(ids(p)).toEqual([b.id])
    expect(await p.records.delete(b.id)).toBe(true)
    expect(p.adapter.written.at(-1)).toEqual([{ op: 'delete', id: b.id }])
    expect((await p.records.clear()).count).toBe(0)
  })

  it('delivery events are taken back if their line is not written', async () => {
    const a = makeRecord()
    const p = parts({ records: [a], suppressions: [] })
    const event = { recipient: 0, type: 'delivered' as const, at: a.createdAt }
    p.adapter.state.failing = true
    await expect(p.records.addEvents(a.id, [event])).rejects.toThrow()
    expect(p.index.get(a.id)).toBe(a)
    p.adapter.state.failing = false
    const next = await p.records.addEvents(a.id, [event])
    expect(next?.status).toBe('delivered')
    expect(p.index.get(a.id)).toBe(next)
    expect(p.adapter.written.at(-1)).toEqual([{ op: 'events', id: a.id, events: [event] }])
  })

  it('refuses changes once the log is closing', async () => {
    const p = parts()
    p.state.closing = true
    await expect(p.records.append(makeRecord())).rejects.toThrow('closed')
    expect(p.adapter.written).toEqual([])
  })
})

describe('suppression-changes', () => {
  const entry = (address: string): Suppression => ({
    address,
    project: 'p',
    reason: 'bounced',
    createdAt: '2026-11-21T10:00:00.000Z',
  })

  it('stores addresses lower-cased, and takes a suppression back if its line fails', async () => {
    const p = parts()
    await p.suppressionChanges.suppress(entry('Ada@Example.com'))
    expect(p.adapter.written.at(-1)).toEqual([{ op: 'suppress', ...entry('ada@example.com') }])
    p.adapter.state.failing = true
    await expect(p.suppressionChanges.suppress(entry('bob@example.com'))).rejects.toThrow()
    expect(p.suppressions.get('p', 'bob@example.com')).toBeUndefined()
    expect(p.suppressions.list().map((s) => s.address)).toEqual(['ada@example.com'])
  })

  it('unsuppress writes nothing when nothing matches, and puts back what a failed line removed', async () => {
    const p = parts({ records: [], suppressions: [entry('a@x.test'), entry('b@x.test')] })
    expect(await p.suppressionChanges.unsuppress({ address: 'c@x.test' })).toEqual([])
    expect(p.adapter.written).toEqual([])
    p.adapter.state.failing = true
    await expect(p.suppressionChanges.unsuppress({ project: 'p' })).rejects.toThrow()
    expect(p.data.suppressions.map((s) => s.address)).toEqual(['a@x.test', 'b@x.test'])
    p.adapter.state.failing = false
    const removed = await p.suppressionChanges.unsuppress({ address: 'A@X.test' })
    expect(removed.map((s) => s.address)).toEqual(['a@x.test'])
    expect(p.adapter.written.at(-1)).toEqual([{ op: 'unsuppress', address: 'a@x.test' }])
  })
})
