import { open, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { LogWriteError } from '../../src/store/errors.js'
import { nodeFs } from '../../src/store/log-fs.js'
import type { LogData } from '../../src/store/log-format.js'
import { createLogRecovery } from '../../src/store/log-recovery.js'
import type { MessageRecord } from '../../src/store/types.js'
import { createWriteQueue } from '../../src/store/write-queue.js'
import { makeRecord, tempDir } from './helpers.js'

/**
 * The recovery with its dependencies faked: a queue whose writes are recorded, counters as the
 * adapter keeps them, a compaction that records what it was given (or fails), memory as given.
 */
function setup(
  options: { file?: string; live?: boolean; compactFails?: Error; recreateFails?: Error } = {},
) {
  const memory: LogData = { records: [makeRecord(), makeRecord()], suppressions: [] }
  const written: string[] = []
  const compactions: { ids: string[]; anew: boolean }[] = []
  const warnings: string[] = []
  let recreated = 0
  const queue = createWriteQueue<MessageRecord>({
    write: async (batch) => {
      written.push(batch.text)
    },
  })
  // The file holds a header-less 5 lines of 100 bytes.
  const expected = { lines: 5, chars: 100 }
  const live = {
    snapshot: () => memory,
    recreate: async () => {
      recreated++
      if (options.recreateFails) throw options.recreateFails
    },
  }
  const recovery = createLogRecovery({
    file: options.file ?? '/x/log.jsonl',
    fs: nodeFs,
    warn: (w) => warnings.push(w),
    queue,
    expected,
    live: () => (options.live === false ? null : live),
    compact: async (records, _suppressions, anew) => {
      if (options.compactFails) throw options.compactFails
      compactions.push({ ids: records.map((r) => r.id), anew })
      expected.chars += 40
    },
  })
  /** Queues a line as the adapter does: counted first. */
  const append = (text: string) => {
    expected.lines++
    expected.chars += text.length
    return queue.add(text, [null])
  }
  return {
    memory,
    queue,
    recovery,
    expected,
    append,
    written,
    compactions,
    warnings,
    recreated: () => recreated,
  }
}

describe('log-recovery', () => {
  it('writes memory anew and settles the queued lines with it, unwritten', async () => {
    const t = setup()
    // Queued behind the rewrite (as during a compaction): its line is in memory already.
    const rewrite = t.queue.serial(() => t.recovery.rewriteFromMemory())
    const line = t.append('{"op":"clear"}\n')
    await Promise.all([rewrite, line])
    expect(t.written).toEqual([])
    expect(t.compactions).toEqual([{ ids: t.memory.records.map((r) => r.id), anew: false }])
    // The new file: two records, 40 bytes.
    expect(t.expected).toEqual({ lines: 2, chars: 40 })
  })

  it('a failed rewrite rejects the lines it took and un-counts them', async () => {
    const t = setup({ compactFails: new Error('EIO: i/o error, rename') })
    const rewrite = t.queue.serial(() => t.recovery.rewriteFromMemory())
    const line = t.append('{"op":"clear"}\n')
    await expect(rewrite).rejects.toBeInstanceOf(LogWriteError)
    await expect(line).rejects.toThrow(/i\/o error/)
    expect(t.written).toEqual([])
    expect(t.expected).toEqual({ lines: 5, chars: 100 })
  })

  it('bare (no live memory), writes what it was given and appends what was queued after', async () => {
    const t = setup({ live: false })
    const given: LogData = { records: [makeRecord()], suppressions: [] }
    const rewrite = t.queue.serial(() => t.recovery.rewriteFromMemory(undefined, false, given))
    const line = t.append('{"op":"clear"}\n')
    await Promise.all([rewrite, line])
    expect(t.compactions).toEqual([{ ids: [given.records[0]!.id], anew: false }])
    expect(t.written).toEqual(['{"op":"clear"}\n'])
    // One record and the line queued after it.
    expect(t.expected).toEqual({ lines: 2, chars: 40 + 15 })
  })

  it('rebuilds folder, lock and file, saying so once a spell', async () => {
    const failing = setup({ recreateFails: new Error('EACCES: permission denied, mkdir') })
    await expect(failing.recovery.rebuild('was removed')).rejects.toBeInstanceOf(LogWriteError)
    await expect(failing.recovery.rebuild('was removed')).rejects.toThrow(/permission denied/)
    expect(failing.warnings).toHaveLength(1)
    expect(failing.warnings[0]).toMatch(/\/x\/log.jsonl was removed while sendbox was running/)
    expect(failing.compactions).toEqual([])

    const t = setup()
    await t.recovery.rebuild('was removed')
    await t.recovery.rebuild('was replaced by another file')
    expect(t.recreated()).toBe(2)
    expect(t.compactions.map((c) => c.anew)).toEqual([true, true])
    // A new spell each time: said each time.
    expect(t.warnings).toHaveLength(2)
  })

  it('a rebuild that cannot re-create the folder un-counts the batch being written', async () => {
    const t = setup({ recreateFails: new Error('EACCES: permission denied, mkdir') })
    t.append('{"op":"clear"}\n')
    const current = t.queue.take().batches[0]!
    await expect(t.recovery.rebuild('was removed', current)).rejects.toThrow(/permission denied/)
    expect(t.expected).toEqual({ lines: 5, chars: 100 })
  })

  it('rebuilds only a file that is gone', async () => {
    const dir = await tempDir()
    const file = path.join(dir, 'log.jsonl')
    await writeFile(file, 'x\n')
    const handle = await open(file, 'a+')
    try {
      const t = setup({ file })
      expect(await t.recovery.rebuildIfGone(handle)).toBe(false)
      expect(t.compactions).toEqual([])
      await rm(file)
      expect(await t.recovery.rebuildIfGone(handle)).toBe(true)
      expect(t.recreated()).toBe(1)
      expect(t.compactions).toEqual([{ ids: t.memory.records.map((r) => r.id), anew: true }])
      expect(t.warnings[0]).toMatch(/was removed/)
    } finally {
      await handle.close()
    }
  })
})
