import { open, writeFile } from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readLines } from '../../src/store/lines.js'
import { tempDir } from './helpers.js'

/** The start-up reader: the log's lines, read a chunk at a time and split on the byte `\n`. */

interface Line {
  text: string
  position: number
  terminated: boolean
}

/** A file handle over `bytes` whose reads return at most `most` bytes each (short reads happen). */
function handleOver(bytes: Buffer, most = Infinity) {
  return {
    read: async (buffer: Buffer, offset: number, length: number, position: number) => {
      const n = Math.max(0, Math.min(length, most, bytes.length - position))
      bytes.copy(buffer, offset, position, position + n)
      return { bytesRead: n, buffer }
    },
  }
}

async function linesOf(
  bytes: Buffer,
  chunk: number,
  most?: number,
): Promise<{ lines: Line[]; read: number }> {
  const lines: Line[] = []
  const read = await readLines(
    handleOver(bytes, most) as never,
    (line, position, terminated) =>
      lines.push({ text: line.toString('utf8'), position, terminated }),
    chunk,
  )
  return { lines, read }
}

/** What splitting the whole decoded text gives: the reader must agree with it. */
function expected(text: string): Line[] {
  const parts = text.split('\n')
  const lines: Line[] = []
  let position = 0
  parts.forEach((part, i) => {
    const last = i === parts.length - 1
    if (last && part === '') return // after a final newline: not a line
    lines.push({ text: part, position, terminated: !last })
    position += Buffer.byteLength(part) + 1
  })
  return lines
}

describe('readLines', () => {
  it('splits lines that straddle chunks, and keeps multi-byte characters cut by a chunk boundary whole', async () => {
    // 'é' is 2 bytes, '€' 3, '😀' 4: with 5-byte chunks most of them are cut in two.
    const text = '{"a":"é€😀"}\n{"b":"😀😀😀😀😀😀"}\r\n\n  \n{"c":"€"}\n'
    const { lines, read } = await linesOf(Buffer.from(text), 5)
    expect(lines).toEqual(expected(text))
    expect(lines.map((l) => l.text)).toEqual([
      '{"a":"é€😀"}',
      '{"b":"😀😀😀😀😀😀"}\r',
      '',
      '  ',
      '{"c":"€"}',
    ])
    expect(read).toBe(Buffer.byteLength(text))
  })

  it('reports an unterminated last line (a torn tail), and grows past the chunk for a long line', async () => {
    const long = `{"html":"${'x'.repeat(5000)}€"}`
    const text = `head\n${long}\n{"id":"torn","status":"se`
    const { lines } = await linesOf(Buffer.from(text), 64)
    expect(lines).toEqual(expected(text))
    expect(lines.at(-1)).toEqual({
      text: '{"id":"torn","status":"se',
      position: Buffer.byteLength(`head\n${long}\n`),
      terminated: false,
    })
  })

  it('an empty file has no lines; a lone newline is one empty line', async () => {
    expect((await linesOf(Buffer.alloc(0), 8)).lines).toEqual([])
    expect((await linesOf(Buffer.from('\n'), 8)).lines).toEqual([
      { text: '', position: 0, terminated: true },
    ])
  })

  it('agrees with splitting the decoded text, for any text, chunk size and short reads (property)', async () => {
    const char = fc.constantFrom('a', '{', '"', '\n', '\r', ' ', 'é', '€', '😀', '\u2026')
    await fc.assert(
      fc.asyncProperty(
        fc.array(char, { maxLength: 200 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 50 }),
        async (chars, chunk, most) => {
          const text = chars.join('')
          const { lines, read } = await linesOf(Buffer.from(text), chunk, most)
          expect(lines).toEqual(expected(text))
          expect(read).toBe(Buffer.byteLength(text))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('reads a real file through a FileHandle', async () => {
    const file = path.join(await tempDir(), 'lines.jsonl')
    const text = `${'{"n":1}\n'.repeat(1000)}{"n":"€"}`
    await writeFile(file, text)
    const handle = await open(file, 'r')
    try {
      const lines: Line[] = []
      await readLines(
        handle,
        (line, position, terminated) =>
          lines.push({ text: line.toString('utf8'), position, terminated }),
        100,
      )
      expect(lines).toEqual(expected(text))
    } finally {
      await handle.close()
    }
  })
})
