import { open, readFile, writeFile, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { openMessageLog } from '../../src/store/index.js'
import { READ_CHUNK } from '../../src/store/lines.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

/** The log read as a stream at start. */

afterEach(() => {
  vi.restoreAllMocks()
})

/** FileHandle's prototype, to watch what the store asks of the file. */
async function fileHandlePrototype(dir: string): Promise<FileHandle> {
  const handle = await open(path.join(dir, 'probe'), 'w')
  await handle.close()
  return Object.getPrototypeOf(handle) as FileHandle
}

const fileLines = async (file: string) => (await readFile(file, 'utf8')).split('\n').slice(0, -1)

describe('reading the log at start', () => {
  it('reads the file a chunk at a time, never whole', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'messages.jsonl')
    const records = Array.from({ length: 12 }, (_, i) => makeRecord({ id: `m${i}`, html: `<p>${'é'.repeat(150_000 + i)}</p>` }))
    await writeFile(file, `${HEADER}\n${records.map((r) => `${JSON.stringify(r)}\n`).join('')}`)
    const proto = await fileHandlePrototype(dir)
    const readFileSpy = vi.spyOn(proto, 'readFile')
    const read = vi.spyOn(proto, 'read')
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.list().messages.map((m) => m.html)).toEqual(records.map((r) => r.html).reverse())
    expect(readFileSpy).not.toHaveBeenCalled()
    // 3.6 MB of lines, read in pieces of at most a chunk (after the 4 KB look at the header).
    const lengths = read.mock.calls.map((call) => call[2] as number)
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
    expect(JSON.stringify(log.list().messages.reverse())).toBe(`[${text.split('\n').slice(1, -1).join(',')}]`)
    expect(log.get('cut')!.html).not.toContain('\uFFFD')
    await log.close()
  })

  it('drops a torn last line longer than a chunk, with the warning, and repairs the file', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const kept = makeRecord({ id: 'kept' })
    const torn = JSON.stringify(makeRecord({ id: 'torn', html: '€'.repeat(READ_CHUNK) })).slice(0, -20)
    await writeFile(file, `${HEADER}\n${JSON.stringify(kept)}\n${torn}`)
    const warn = vi.fn()
    const log = await openMessageLog({ file, warn })
    expect(warn).toHaveBeenCalledOnce()
    expect(warn.mock.calls[0]![0]).toMatch(new RegExp(`torn last line \\(line 3, ${torn.length} characters\\)`))
    expect(log.list().messages.map((m) => m.id)).toEqual(['kept'])
    await log.close()
    expect(await fileLines(file)).toEqual([HEADER, JSON.stringify(kept)])
  })

  it('reads a log with CRLF line ends, as before; compaction writes plain \\n', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const [a, b] = [makeRecord({ id: 'a', subject: 'Größe €' }), makeRecord({ id: 'b' })]
    await writeFile(file, `${HEADER}\r\n${JSON.stringify(a)}\r\n${JSON.stringify(b)}\r\n${JSON.stringify({ op: 'delete', id: 'b' })}\r\n`)
    const log = await openMessageLog({ file, warn: () => {} })
    expect(log.list().messages).toEqual([a])
    await log.close()
    expect(await readFile(file, 'utf8')).toBe(`${HEADER}\n${JSON.stringify(a)}\n`)
  })
})
