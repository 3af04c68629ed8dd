import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { LogWriteError } from '../../src/store/errors.js'
import { createLineSpans } from '../../src/store/line-spans.js'
import { createLogFile } from '../../src/store/log-file.js'
import { type LogFs, nodeFs } from '../../src/store/log-fs.js'
import { tornFs, watchedFs } from './faulty-fs.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

async function logAt(fs: LogFs = nodeFs) {
  const file = path.join(await tempDir(), 'log.jsonl')
  await writeFile(file, `${HEADER}\n`)
  const spans = createLineSpans()
  const log = createLogFile(file, fs, spans, Buffer.byteLength(`${HEADER}\n`))
  return { file, spans, log }
}

const lines = (...entries: object[]) =>
  Buffer.from(entries.map((e) => `${JSON.stringify(e)}\n`).join(''))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('log-file', () => {
  it('appends lines at the end and notes where each record landed', async () => {
    const { file, spans, log } = await logAt()
    const [a, b] = [makeRecord(), makeRecord()]
    await log.append(lines(a, { op: 'delete', id: 'x' }, b), [a, null, b])
    const bytes = await readFile(file)
    expect(log.size()).toBe(bytes.length)
    for (const record of [a, b]) {
      const span = spans.lineOf(record)!
      const line = bytes.subarray(span.position, span.position + span.length).toString()
      expect(line).toBe(`${JSON.stringify(record)}\n`)
    }
    await log.close()
  })

  it('cuts a torn line back off and throws LogWriteError', async () => {
    const torn = tornFs()
    const { file, log } = await logAt(torn.fs)
    const before = await readFile(file, 'utf8')
    torn.tear(7)
    const error = await log.append(lines(makeRecord()), [null]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LogWriteError)
    expect(await readFile(file, 'utf8')).toBe(before)
    expect(log.size()).toBe(before.length)
    await log.close()
  })

  it('a tail it could not cut off is cut before the next append', async () => {
    const torn = tornFs()
    const { file, log } = await logAt(torn.fs)
    const before = await readFile(file, 'utf8')
    torn.tear(7)
    torn.state.truncateFails = true
    await expect(log.append(lines({ op: 'clear' }), [null])).rejects.toBeInstanceOf(LogWriteError)
    expect((await readFile(file, 'utf8')).length).toBe(before.length + 7)
    torn.state.truncateFails = false
    await log.append(lines({ op: 'clear' }), [null])
    expect(await readFile(file, 'utf8')).toBe(`${before}{"op":"clear"}\n`)
    await log.close()
  })

  it('writes a few lines on its own thread when idle, and on the thread pool right after a write or when many', async () => {
    // The clock the log reads to tell idle from busy, moved by hand.
    let clock = 1000
    vi.spyOn(performance, 'now').mockImplementation(() => clock)
    const wroteHere: (boolean | undefined)[] = []
    const { file, log } = await logAt(watchedFs(({ here }) => void wroteHere.push(here)))
    await log.append(lines({ op: 'clear' }), [null]) // the first: idle
    clock += 0.5
    await log.append(lines({ op: 'clear' }), [null]) // half a millisecond after the last
    clock += 5
    await log.append(lines({ op: 'clear' }), [null]) // idle again
    clock += 5
    await log.append(lines(makeRecord({ html: 'x'.repeat(40_000) })), [null]) // idle, but 40 KB
    expect(wroteHere).toEqual([true, false, true, false])
    expect((await readFile(file, 'utf8')).split('\n')).toHaveLength(6) // header, 4 lines, ''
    await log.close()
  })

  it('swaps in a compacted file and appends to it from then on', async () => {
    const { file, log } = await logAt()
    const [a, b] = [makeRecord(), makeRecord()]
    await log.append(lines(a, b, { op: 'delete', id: a.id }), [a, b, null])
    const old = log.handle()!
    const written = await log.replace([b], [], false)
    expect(await readFile(file, 'utf8')).toBe(`${HEADER}\n${JSON.stringify(b)}\n`)
    expect(written).toBe(log.size())
    expect(log.handle()).not.toBe(old)
    // The old handle was closed.
    await expect(old.stat()).rejects.toThrow()
    await log.append(lines({ op: 'clear' }), [null])
    expect(await readFile(file, 'utf8')).toBe(`${HEADER}\n${JSON.stringify(b)}\n{"op":"clear"}\n`)
    await log.close()
    expect(log.handle()).toBeNull()
  })
})
