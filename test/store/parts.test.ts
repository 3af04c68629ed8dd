import { open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeCompacted } from '../../src/store/compaction.js'
import { whatHappenedTo } from '../../src/store/file-identity.js'
import { createLineSpans } from '../../src/store/line-spans.js'
import { lineReader, sliceWriter, writeAll } from '../../src/store/file-io.js'
import { nodeFs } from '../../src/store/log-fs.js'
import { prepareFolder, removeStaleTempFiles } from '../../src/store/log-folder.js'
import { LOG_HEADER, checkHeader, decode } from '../../src/store/log-format.js'
import { createRecordIndex } from '../../src/store/record-index.js'
import { withEvents } from '../../src/store/recipients.js'
import { createReplay } from '../../src/store/replay.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'
import type { MessageRecord } from '../../src/store/types.js'

/** The parts of the log, each on its own: format, replay, file I/O, compaction, memory, folder. */

describe('log-format', () => {
  it('decodes each kind of line and says why a line is not one', () => {
    expect(decode('{"op":"clear"}')).toEqual({ op: 'clear' })
    expect(decode('{"op":"delete","ids":["a","b"]}')).toEqual({ op: 'delete', ids: ['a', 'b'] })
    expect(decode('{"id":"m","status":"sent"}')).toEqual({ id: 'm', status: 'sent' })
    expect(decode('[1]')).toBe('not a JSON object')
    expect(decode('{"op":"explode"}')).toBe('unknown log operation "explode"')
    expect(decode('{"id":"m"}')).toMatch(/neither a message/)
    expect(decode('{')).toMatch(/^not valid JSON/)
  })

  it('checks the header, naming the file', () => {
    expect(() => checkHeader('/x/log.jsonl', LOG_HEADER)).not.toThrow()
    expect(() => checkHeader('/x/log.jsonl', '{"hello":1}')).toThrow(
      /\/x\/log.jsonl is not a sendbox/,
    )
    expect(() => checkHeader('/x/log.jsonl', '{"sendbox":"log","version":2}')).toThrow(/version 2/)
  })
})

describe('replay', () => {
  const run = (lines: string[], limits = { maxRecords: Infinity, maxBytes: Infinity }) => {
    const warnings: string[] = []
    const replay = createReplay(
      '/x/log.jsonl',
      limits,
      (w) => warnings.push(w),
      () => {},
    )
    let position = 0
    for (const [i, line] of [HEADER, ...lines].entries()) {
      const terminated = !(i === lines.length && line.endsWith('…'))
      replay.line(Buffer.from(line.replace(/…$/, '')), position, terminated)
      position += Buffer.byteLength(line) + 1
    }
    return { ...replay.result(), warnings }
  }

  it('applies deletes, clears and suppressions in order', () => {
    const [a, b, c] = [makeRecord(), makeRecord(), makeRecord()]
    const s = {
      op: 'suppress',
      address: 'x@y.test',
      project: 'p',
      reason: 'bounced',
      createdAt: 't',
    }
    const result = run(
      [a, b, { op: 'delete', id: a.id }, { op: 'clear' }, c, s].map((e) => JSON.stringify(e)),
    )
    expect(result.records.map((r) => r.id)).toEqual([c.id])
    expect(result.suppressions).toEqual([
      { address: 'x@y.test', project: 'p', reason: 'bounced', createdAt: 't' },
    ])
    expect(result.lines).toBe(6)
  })

  it('drops the oldest past maxRecords, as the log did when it ran', () => {
    const records = [makeRecord(), makeRecord(), makeRecord()]
    const result = run(
      records.map((r) => JSON.stringify(r)),
      { maxRecords: 2, maxBytes: Infinity },
    )
    expect(result.records.map((r) => r.id)).toEqual([records[1]!.id, records[2]!.id])
    expect(result.dropped.of()).toBe(1)
    expect(result.dropped.of(records[0]!.project)).toBe(1)
  })

  it('drops a torn last line with a warning, and refuses a bad line in the middle', () => {
    const a = makeRecord()
    const torn = run([JSON.stringify(a), '{"id":"half…'])
    expect(torn.records.map((r) => r.id)).toEqual([a.id])
    expect(torn.rewrite).toBe(true)
    expect(torn.warnings[0]).toMatch(/torn last line \(line 3/)
    expect(() => run(['nope', JSON.stringify(a)])).toThrow(/line 2: not valid JSON/)
  })
})

describe('file-io', () => {
  it('writeAll writes every byte though write(2) writes less than asked', async () => {
    const chunks: string[] = []
    const write = async (buffer: Buffer, offset: number, length: number) => {
      const n = Math.min(3, length)
      chunks.push(buffer.subarray(offset, offset + n).toString())
      return { bytesWritten: n }
    }
    expect(await writeAll(write, Buffer.from('abcdefgh'))).toBe(8)
    expect(chunks).toEqual(['abc', 'def', 'gh'])
  })

  it('sliceWriter and lineReader: what one writes, the other reads back by position', async () => {
    const file = path.join(await tempDir(), 'f')
    const handle = await open(file, 'w+')
    const out = sliceWriter((b, o, l) => nodeFs.write(handle, b, o, l))
    await out.text('{"a":1}\n')
    const at = out.length
    await out.bytes(Buffer.from('{"b":"é"}\n'))
    await out.text('not a line\n')
    expect(await out.end()).toBe(out.length)
    const lines = lineReader(handle)
    expect((await lines.line(at, Buffer.byteLength('{"b":"é"}\n')))?.toString()).toBe('{"b":"é"}\n')
    expect(await lines.line(at + 12, 11)).toBeUndefined() // not `{…}\n`
    await handle.close()
  })
})

describe('compaction', () => {
  it('copies lines it can, rebuilds changed states from an older line, serialises the rest', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'log.jsonl')
    const [a, b] = [makeRecord(), makeRecord()]
    const lineA = `${JSON.stringify(a)}\n`
    await writeFile(file, `${HEADER}\n${lineA}`, { mode: 0o644 })
    const delivered = withEvents(a, [{ recipient: 0, type: 'delivered', at: a.createdAt }])
    const source = await open(file, 'r')
    const spanA = { position: HEADER.length + 1, length: Buffer.byteLength(lineA) }
    const result = await writeCompacted({
      file,
      fs: nodeFs,
      source,
      records: [delivered, b],
      suppressions: [],
      lineOf: (r) => (r === a ? spanA : undefined),
      baseOf: (r) => (r === delivered ? a : undefined),
    })
    await source.close()
    await result.handle.close()
    const text = await readFile(file, 'utf8')
    expect(text).toBe(`${HEADER}\n${JSON.stringify(delivered)}\n${JSON.stringify(b)}\n`)
    expect(result.written).toBe(Buffer.byteLength(text))
    expect(result.spans.map(([r]) => r)).toEqual([delivered, b])
    expect((await stat(file)).mode & 0o777).toBe(0o644) // the old file's mode (a chmod survives)
    expect(await readdir(dir)).toEqual(['log.jsonl']) // no temp file left
  })
})

describe('record-index', () => {
  it('adds, replaces by id, drops the oldest past the limits, lists newest first', () => {
    const index = createRecordIndex([], { maxMessages: 2, maxBytes: Infinity })
    const [a, b, c] = [makeRecord(), makeRecord(), makeRecord()]
    index.add(a)
    index.add(b)
    index.add(c)
    index.dropOverflow()
    expect(index.list().messages).toEqual([c, b])
    expect(index.dropped()).toBe(1)
    const b2 = { ...b, subject: 'again' }
    expect(index.add(b2)).toBe(b) // the one it replaces, retired once b2's line is written
    expect(index.get(b.id)).toBe(b2)
    index.retire(b)
    expect(index.list().messages).toEqual([b2, c])
    expect(index.latest({ subject: 'again' })).toBe(b2)
    index.remove(c)
    expect([...index.all()]).toEqual([b2])
    expect(index.get(c.id)).toBeUndefined()
  })

  it('takes back an unwritten add, and puts back removals that were not written, in order', () => {
    const index = createRecordIndex([], { maxMessages: 10, maxBytes: Infinity })
    const [a, b, c, d] = [makeRecord(), makeRecord(), makeRecord(), makeRecord()]
    for (const r of [a, b, c]) index.add(r)
    index.keepOnly([b]) // a clear of a and c…
    index.add(d) // …then a send whose line failed
    index.unadd(d, undefined)
    index.reinsert([a, c, d]) // …and the clear's line failed too: a and c come back, d does not
    expect([...index.all()]).toEqual([a, b, c])
    expect(index.get(d.id)).toBeUndefined()
  })

  it("reads a record's addresses and subject once, not at every filtered list", () => {
    const index = createRecordIndex([], { maxMessages: 10, maxBytes: Infinity })
    const reads = { to: 0, from: 0, subject: 0 }
    const counted = (record: MessageRecord) => {
      for (const key of ['to', 'from', 'subject'] as const) {
        const value = record[key]
        Object.defineProperty(record, key, {
          enumerable: true,
          get: () => (reads[key]++, value),
        })
      }
      return record
    }
    const a = makeRecord()
    const b = counted(
      makeRecord({
        to: [{ name: 'Bo', address: 'bo@x.test' }],
        from: { name: 'Bo Shop', address: 'shop@bo.test' },
        subject: 'Bo news',
      }),
    )
    index.add(a)
    index.add(b)
    const filters = [
      { to: 'BO@X' },
      { recipient: 'bo@x.test' },
      { from: 'bo shop' },
      { subject: 'BO N' },
    ]
    for (const filter of filters) expect(index.list(filter).messages).toEqual([b])
    const once = { ...reads }
    for (let i = 0; i < 3; i++)
      for (const filter of filters) {
        expect(index.list(filter).messages).toEqual([b])
        expect(index.latest(filter)).toBe(b)
      }
    // A record with a `from` is asked whether it has one; its texts are made only once.
    expect({ to: reads.to, subject: reads.subject }).toEqual({ to: once.to, subject: once.subject })
  })

  it('drops past the limits counting only written records', () => {
    const index = createRecordIndex([], { maxMessages: 2, maxBytes: Infinity })
    for (const r of [makeRecord(), makeRecord(), makeRecord()]) index.add(r)
    index.dropOverflow({ count: 1, bytes: 0 }) // the newest is still queued
    expect(index.live()).toBe(3)
    index.dropOverflow()
    expect(index.live()).toBe(2)
  })
})

describe('log-folder', () => {
  it('creates a missing folder owner-only with a .gitignore, and leaves an existing one as it is', async () => {
    const dir = path.join(await tempDir(), 'new')
    expect(await prepareFolder(path.join(dir, 'log.jsonl'))).toBe(true)
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(await prepareFolder(path.join(dir, 'log.jsonl'))).toBe(false)
  })

  it('removes only the temp files of a compaction', async () => {
    const dir = await tempDir()
    for (const name of ['log.jsonl.123.0badcafe.tmp', 'log.jsonl.tmp', 'other.1.0badcafe.tmp'])
      await writeFile(path.join(dir, name), '')
    await removeStaleTempFiles(path.join(dir, 'log.jsonl'))
    expect((await readdir(dir)).sort()).toEqual(['log.jsonl.tmp', 'other.1.0badcafe.tmp'])
  })
})

describe('line-spans', () => {
  it('knows where a record and the versions it was made from are, until a new file', () => {
    const spans = createLineSpans()
    const a = makeRecord()
    const delivered = withEvents(a, [{ recipient: 0, type: 'delivered', at: a.createdAt }])
    spans.set(a, { position: 30, length: 400 })
    spans.derived(delivered, a)
    expect(spans.lineOf(delivered)).toBeUndefined()
    expect(spans.baseOf(delivered)).toBe(a)
    spans.next([[delivered, { position: 30, length: 410 }]])
    expect(spans.lineOf(a)).toBeUndefined() // a line of the old file
    expect(spans.lineOf(delivered)).toMatchObject({ position: 30, length: 410 })
    expect(spans.baseOf(delivered)).toBeUndefined()
  })
})

describe('file-identity', () => {
  it('tells a file removed, replaced, or still there', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'log')
    await writeFile(file, 'x')
    const handle = await open(file, 'a')
    expect(await whatHappenedTo(handle, file, nodeFs)).toBeNull()
    await writeFile(path.join(dir, 'other'), 'y')
    await rename(path.join(dir, 'other'), file)
    expect(await whatHappenedTo(handle, file, nodeFs)).toBe('was replaced by another file')
    await rm(file)
    expect(await whatHappenedTo(handle, file, nodeFs)).toBe('was removed')
    await handle.close()
  })
})
