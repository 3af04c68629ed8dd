import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createJsonlAdapter } from '../../src/store/jsonl-adapter.js'
import { openMessageLog } from '../../src/store/index.js'
import { tornFs, watchedFs } from './faulty-fs.js'
import { HEADER, makeRecord, tempDir } from './helpers.js'

afterEach(() => {
  vi.restoreAllMocks()
})

describe('appending', () => {
  it('batches appends that arrive while a write is in flight into one write', async () => {
    const dir = await tempDir()
    // A slow disk: the first write is held until the next appends have piled up behind it.
    let inFlight!: () => void
    const started = new Promise<void>((resolve) => (inFlight = resolve))
    let release!: () => void
    const disk = new Promise<void>((resolve) => (release = resolve))
    const writes: number[] = []
    let watching = false
    const fs = watchedFs(async ({ length }) => {
      if (!watching) return
      writes.push(length)
      if (writes.length === 1) {
        inFlight()
        await disk
      }
    })
    const log = await openMessageLog({ file: path.join(dir, 'messages.jsonl'), fs })
    watching = true
    const settled: string[] = []
    const first = log.append(makeRecord({ id: 'first' })).then(() => settled.push('first'))
    await started // the first write is now in flight
    const rest = Array.from({ length: 50 }, (_, i) =>
      log.append(makeRecord({ id: `r${i}` })).then(() => settled.push(`r${i}`)),
    )
    release()
    await first
    expect(settled).toEqual(['first']) // the batch behind it is not acknowledged yet
    await Promise.all(rest)
    expect(writes).toHaveLength(2)
    const lines = (await readFile(log.file!, 'utf8')).trimEnd().split('\n')
    expect(lines.map((l) => (JSON.parse(l) as { id?: string }).id)).toEqual([
      undefined,
      'first',
      ...Array.from({ length: 50 }, (_, i) => `r${i}`),
    ])
    await log.close()
  })

  it('writes only the new line, however large the log is', async () => {
    const dir = await tempDir()
    const writes: number[] = []
    const fs = watchedFs(({ length }) => void writes.push(length))
    const log = await openMessageLog({ file: path.join(dir, 'messages.jsonl'), fs })
    await Promise.all(
      Array.from({ length: 2000 }, () => log.append(makeRecord({ html: 'x'.repeat(500) }))),
    )
    writes.length = 0
    const record = makeRecord()
    await log.append(record)
    expect(writes).toEqual([Buffer.byteLength(`${JSON.stringify(record)}\n`)])
    await log.close()
  })

  it('cuts off a failed partial write and forgets the unacknowledged record', async () => {
    const dir = await tempDir()
    const torn = tornFs()
    const log = await openMessageLog({ file: path.join(dir, 'messages.jsonl'), fs: torn.fs })
    await log.append(makeRecord({ id: 'a' }))
    torn.tear() // half a line lands, then the disk is full
    await expect(log.append(makeRecord({ id: 'b' }))).rejects.toThrow(/ENOSPC/)
    expect(log.get('b')).toBeUndefined()
    await log.append(makeRecord({ id: 'c' }))
    await log.close()
    const reopened = await openMessageLog({ file: log.file! })
    expect(reopened.list().messages.map((m) => m.id)).toEqual(['c', 'a'])
    await reopened.close()
  })
})

describe('compaction (write)', () => {
  it('keeps appends issued while it is queued or running, in order', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const adapter = createJsonlAdapter(file, { warn: () => {} })
    await adapter.read()
    const [a, b, c, d] = [makeRecord(), makeRecord(), makeRecord(), makeRecord()]
    const appendedBefore = adapter.append([a]) // lands in the old file; the snapshot has it too
    const compaction = adapter.write({ records: [a, b], suppressions: [] })
    const appendedDuring = adapter.append([c, { op: 'delete', id: b.id }, d])
    await Promise.all([appendedBefore, compaction, appendedDuring])
    expect(adapter.lines()).toBe(5)
    await adapter.close()
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toEqual([
      HEADER,
      JSON.stringify(a),
      JSON.stringify(b),
      JSON.stringify(c),
      JSON.stringify({ op: 'delete', id: b.id }),
      JSON.stringify(d),
    ])
    const replayed = createJsonlAdapter(file, { warn: () => {} })
    expect((await replayed.read())!.records.map((r) => r.id)).toEqual([a.id, c.id, d.id])
  })

  it('rejects use after close', async () => {
    const file = path.join(await tempDir(), 'messages.jsonl')
    const adapter = createJsonlAdapter(file, { warn: () => {} })
    await adapter.read()
    await adapter.write({ records: [], suppressions: [] })
    await adapter.close()
    await adapter.close()
    expect(() => adapter.append([makeRecord()])).toThrow(/closed/)
  })
})
