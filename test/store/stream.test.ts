import { open, readFile, stat, truncate, writeFile, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openMessageLog, type MessageRecord } from '../../src/store/index.js'
import { READ_CHUNK } from '../../src/store/lines.js'
import { tornFs } from './faulty-fs.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

/**
 * The log read as a stream at start, and each record serialised once: compaction copies a
 * record's line out of the file instead of serialising the record again.
 */

const at = '2026-11-21T10:00:01.000Z'

afterEach(() => {
  vi.restoreAllMocks()
})

/** FileHandle's prototype, to watch what the store asks of the file. */
async function fileHandlePrototype(dir: string): Promise<FileHandle> {
  const handle = await open(path.join(dir, 'probe'), 'w')
  await handle.close()
  return Object.getPrototypeOf(handle) as FileHandle
}

const isRecord = (value: unknown): value is MessageRecord =>
  typeof value === 'object' && value !== null && 'html' in value && 'recipients' in value

/** Counts JSON.stringify calls that serialise a whole message record. */
function countRecordSerialisations() {
  const stringify = vi.spyOn(JSON, 'stringify')
  return () => stringify.mock.calls.filter(([value]) => isRecord(value)).length
}

const fileLines = async (file: string) => (await readFile(file, 'utf8')).split('\n').slice(0, -1)

describe('reading the log at start', () => {
  it('reads the file a chunk at a time, never whole', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'messages.jsonl')
    const records = Array.from({ length: 12 }, (_, i) =>
      makeRecord({ id: `m${i}`, html: `<p>${'é'.repeat(150_000 + i)}</p>` }),
    )
    await writeFile(file, `${HEADER}\n${records.map((r) => `${JSON.stringify(r)}\n`).join('')}`)
    const proto = await fileHandlePrototype(dir)
    const readFileSpy = vi.spyOn(proto, 'readFile')
    const read = vi.spyOn(proto, 'read')
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.list().messages.map((m) => m.html)).toEqual(records.map((r) => r.html).reverse())
    expect(readFileSpy).not.toHaveBeenCalled()
    // 3.6 MB of lines, read in pieces of at most a chunk (after the 4 KB look at the header).
    const lengths = read.mock.calls.map((call) => (call as unknown[])[2] as number)
    expect(lengths.length).toBeGreaterThan(3)
    expect(Math.max(...lengths)).toBeLessThanOrEqual(READ_CHUNK)
    await log.close()
  })

  it('decodes a multi-byte character cut in two by a chunk boundary, and a line longer than a chunk', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    // Shift a run of '€' (3 bytes each) so that the first chunk ends one byte into one of them.
    let text = ''
    for (let pad = 0; pad < 3; pad++) {
      const first = makeRecord({ id: 'cut', html: `${'a'.repeat(pad)}${'€'.repeat(400_000)}` })
      text = `${HEADER}\n${JSON.stringify(first)}\n`
      const euros = Buffer.from(text).indexOf(Buffer.from('€'))
      if ((READ_CHUNK - euros) % 3 === 1) break
    }
    const long = makeRecord({ id: 'long', html: '😀'.repeat(700_000), subject: 'Größe' }) // 2.8 MB: longer than a chunk
    text += `${JSON.stringify(long)}\n`
    await writeFile(file, text)
    const log = await openMessageLog({ file, warn: () => {} })
    expect(JSON.stringify(log.list().messages.reverse())).toBe(
      `[${text.split('\n').slice(1, -1).join(',')}]`,
    )
    expect(log.get('cut')!.html).not.toContain('\uFFFD')
    await log.close()
  })

  it('drops a torn last line longer than a chunk, with the warning, and repairs the file', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const kept = makeRecord({ id: 'kept' })
    const torn = JSON.stringify(makeRecord({ id: 'torn', html: '€'.repeat(READ_CHUNK) })).slice(
      0,
      -20,
    )
    await writeFile(file, `${HEADER}\n${JSON.stringify(kept)}\n${torn}`)
    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).toHaveBeenCalledOnce()
    expect(warn.mock.calls[0]![0]).toMatch(
      new RegExp(`torn last line \\(line 3, ${torn.length} characters\\)`),
    )
    expect(log.list().messages.map((m) => m.id)).toEqual(['kept'])
    await log.close()
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(kept)])
  })

  it('reads a log with CRLF line ends, as before; compaction writes plain \\n', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const [a, b] = [makeRecord({ id: 'a', subject: 'Größe €' }), makeRecord({ id: 'b' })]
    await writeFile(
      file,
      `${HEADER}\r\n${JSON.stringify(a)}\r\n${JSON.stringify(b)}\r\n${JSON.stringify({ op: 'delete', id: 'b' })}\r\n`,
    )
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.list().messages).toEqual([a])
    await log.close()
    expect(await readFile(file, 'utf8')).toBe(`${HEADER}\n${JSON.stringify(a)}\n`)
  })
})

describe('compaction', () => {
  it('copies each record line from the file as appended, serialising no record again', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const log = await openMessageLog({ file, warn: () => {} })
    const records = [
      makeRecord({ id: 'a', subject: 'Grüße 😀' }),
      makeRecord({ id: 'b' }),
      makeRecord({ id: 'c', html: 'x'.repeat(200_000) }),
    ]
    for (const record of records) await log.append(record)
    const appended = (await fileLines(file)).slice(1)
    expect(appended).toEqual(records.map((r) => JSON.stringify(r)))
    await log.delete('b') // a dead line: close() compacts
    const serialised = countRecordSerialisations()
    await log.close()
    expect(serialised()).toBe(0)
    expect(await fileLines(file)).toEqual([HEADER, appended[0], appended[2]])
  })

  it('keeps a line byte for byte, as the file had it (escapes, key order), not as the record would serialise now', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    // Written by hand or by another JSON writer: an escaped é, and integer-like keys in an order JSON.parse does not keep.
    const line = JSON.stringify(
      makeRecord({ id: 'a', subject: 'caf_', templateVariables: { '10': 'x', '2': 'y' } }),
    ).replace('caf_', 'caf\\u00e9')
    await writeFile(file, `${HEADER}\n${line}\n${JSON.stringify({ op: 'delete', id: 'gone' })}\n`)
    const log = await openMessageLog({ file, warn: () => {} }) // a dead line: compacts at open
    expect(log.get('a')!.subject).toBe('café')
    await log.close()
    expect(await fileLines(file)).toEqual([HEADER, line])
  })

  it('writes a record changed by delivery events as its old line with status and recipients replaced, serialising no record', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const first = await openMessageLog({ file, warn: () => {} })
    await first.append(
      makeRecord({
        id: 'a',
        subject: 'Grüße 😀',
        to: [
          { name: null, address: 'x@example.com' },
          { name: 'Y', address: 'y@example.com' },
        ],
      }),
    )
    await first.append(makeRecord({ id: 'b' }))
    await first.addEvents('a', [{ recipient: 0, type: 'delivered', at }])
    const bounced = await first.addEvents('a', [
      { recipient: 1, type: 'bounced', at, bounce: { type: 'hard' } },
    ]) // two versions on from its line
    await first.delete('b')
    let serialised = countRecordSerialisations()
    await first.close()
    expect(serialised()).toBe(0)
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(bounced)])
    vi.restoreAllMocks()

    // Its line is now the record: read back at start, copied by the next compaction.
    const second = await openMessageLog({ file, warn: () => {} })
    expect(second.get('a')).toEqual(bounced)
    await second.append(makeRecord({ id: 'c' }))
    await second.delete('c')
    const opened = await second.addEvents('a', [{ recipient: 0, type: 'opened', at }])
    serialised = countRecordSerialisations()
    await second.close()
    expect(serialised()).toBe(0)
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(opened)])
  })

  it('serialises a changed record once when its old line is not in the shape sendbox writes', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    // Written by another JSON writer: recipients not last. Replaced in place it would lose nothing, but the shape is not checked: serialise.
    const { recipients, ...rest } = makeRecord({ id: 'a' })
    const line = JSON.stringify({ ...rest, recipients, extra: 1 })
    await writeFile(file, `${HEADER}\n${line}\n`)
    const log = await openMessageLog({ file, warn: () => {} })
    await log.append(makeRecord({ id: 'b' }))
    await log.delete('b')
    const next = await log.addEvents('a', [{ recipient: 0, type: 'delivered', at }])
    const serialised = countRecordSerialisations()
    await log.close()
    expect(serialised()).toBe(1)
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(next)])
  })

  it('at run time: each version of a record is serialised once, across compactions, a failed append and a reopen', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'messages.jsonl')
    const torn = tornFs()
    // maxMessages 4: every append past it drops the oldest, dead lines that trigger compaction.
    const log = await openMessageLog({ file, maxMessages: 4, warn: () => {}, fs: torn.fs })
    const inode = (await stat(file)).ino
    // Held open, the first file's inode cannot be given to a later compaction's file (Linux
    // reuses freed inode numbers at once: a CI run saw the third file get the first's number).
    const first = await open(file, 'r')
    /** The test's own copy of each live record's line, serialised past the spy. */
    const lineOf = JSON.stringify.bind(JSON) as (record: MessageRecord) => string
    const stringify = vi.spyOn(JSON, 'stringify')
    const expected = new Map<string, string>()
    for (let i = 0; i < 400; i++) {
      const record = makeRecord({ id: `m${i}`, subject: `€${i}` })
      if (i % 97 === 50) {
        // Half a line lands, then the disk is full: cut off again, and the record forgotten.
        torn.tear()
        await expect(log.append(record)).rejects.toThrow(/ENOSPC/)
        continue
      }
      await log.append(record)
      expected.set(record.id, lineOf(record))
      // Events for some, now or a few sends later (after a compaction, maybe), one or two steps.
      for (const id of [record.id, `m${i - 2}`]) {
        if (i % 3 !== 0 || !log.get(id)) continue
        let next = (await log.addEvents(id, [{ recipient: 0, type: 'delivered', at }]))!
        if (i % 2 === 0) next = (await log.addEvents(id, [{ recipient: 0, type: 'opened', at }]))!
        expected.set(id, lineOf(next))
      }
    }
    expect((await stat(file)).ino).not.toBe(inode) // compacted while running
    await first.close()
    const live = log
      .list()
      .messages.map((m) => m.id)
      .reverse()
    await log.delete(live[0]!)
    await log.close()
    const reopened = await openMessageLog({ file, maxMessages: 4, warn: () => {} })
    await reopened.append(makeRecord({ id: 'late' }))
    await reopened.delete('late')
    await reopened.close()
    // Serialised at its append; a version changed by events is written from an older version's line.
    const perRecord = new Map<unknown, number>()
    for (const [value] of stringify.mock.calls)
      if (isRecord(value)) perRecord.set(value, (perRecord.get(value) ?? 0) + 1)
    expect(Math.max(...perRecord.values())).toBe(1)
    expect([...perRecord.values()].length).toBe(401) // the 400 appends and 'late': nothing else
    vi.restoreAllMocks()
    expect(await fileLines(file)).toEqual([HEADER, ...live.slice(1).map((id) => expected.get(id))])
  })

  it('serialises the records whose lines are no longer in the file (cut off under it)', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const log = await openMessageLog({ file, warn: () => {} })
    const [a, b] = [makeRecord({ id: 'a' }), makeRecord({ id: 'b' })]
    await log.append(a)
    await log.append(b)
    await truncate(file, HEADER.length + 1 + 10) // someone else cut the file short
    await log.delete('b')
    await log.close()
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(a)])
  })
})
