import { describe, expect, it } from 'vitest'
import { type Batch, createWriteQueue } from '../../src/store/write-queue.js'

/** A writer whose writes each wait to be let go, so a test decides when a batch lands. */
function fakeWriter() {
  const writes: { text: string; release: () => void; fail: (error: Error) => void }[] = []
  let started: () => void = () => {}
  return {
    writes,
    write(batch: Batch<string>): Promise<void> {
      return new Promise<void>((release, fail) => {
        writes.push({ text: batch.text, release, fail })
        started()
      })
    },
    /** Resolves once `n` writes have started. */
    started(n: number): Promise<void> {
      if (writes.length >= n) return Promise.resolve()
      return new Promise<void>((resolve) => {
        started = () => writes.length >= n && resolve()
      })
    },
  }
}

const outcome = (p: Promise<void>) =>
  p.then(
    () => 'written',
    (error: Error) => error.message,
  )

describe('write-queue', () => {
  it('writes the lines added while a write is in flight in one batch, in order', async () => {
    const writer = fakeWriter()
    const queue = createWriteQueue<string>({ write: writer.write })
    const first = queue.add('a\n', ['a'])
    await writer.started(1)
    // The first batch is being written: these two join the next one.
    const second = queue.add('b\n', ['b'])
    const third = queue.add('c\n', [null])
    expect(second).toBe(third)
    expect(queue.queued()).toEqual({ lines: 2, chars: 4 })
    writer.writes[0]!.release()
    await first
    await writer.started(2)
    expect(writer.writes.map((w) => w.text)).toEqual(['a\n', 'b\nc\n'])
    writer.writes[1]!.release()
    await second
    expect(queue.queued()).toEqual({ lines: 0, chars: 0 })
  })

  it('rejects only the appends of a failed batch; the next batch is still written', async () => {
    const writer = fakeWriter()
    const queue = createWriteQueue<string>({ write: writer.write })
    const first = outcome(queue.add('a\n', ['a']))
    await writer.started(1)
    const second = outcome(queue.add('b\n', ['b']))
    writer.writes[0]!.fail(new Error('ENOSPC'))
    await writer.started(2)
    writer.writes[1]!.release()
    expect([await first, await second]).toEqual(['ENOSPC', 'written'])
  })

  it('tells `settled` about every batch, written or failed', async () => {
    const settled: (string | null)[][] = []
    let fail = true
    const queue = createWriteQueue<string>({
      write: async () => {
        if (fail) throw new Error('EIO')
      },
      settled: (batch) => settled.push(batch.records),
    })
    await expect(queue.add('a\n', ['a'])).rejects.toThrow('EIO')
    fail = false
    await queue.add('b\n', ['b', null])
    expect(settled).toEqual([['a'], ['b', null]])
  })

  it('runs serial operations in turn with the batches', async () => {
    const order: string[] = []
    const queue = createWriteQueue<string>({
      write: async (batch) => {
        order.push(batch.text)
      },
    })
    const a = queue.add('a', [null])
    const op = queue.serial(async () => order.push('op'))
    // Detached by the operation queued after it: this line is written after the operation.
    queue.detach()
    const b = queue.add('b', [null])
    await Promise.all([a, op, b])
    expect(order).toEqual(['a', 'op', 'b'])
  })

  it('lets a rewrite take the queued batches: they settle with it, unwritten', async () => {
    const writer = fakeWriter()
    const queue = createWriteQueue<string>({ write: writer.write })
    const first = outcome(queue.add('a\n', ['a']))
    await writer.started(1)
    const second = outcome(queue.add('bb\n', ['b']))
    const taken = queue.take()
    expect(taken).toMatchObject({ lines: 1, chars: 3 })
    expect(queue.queued()).toEqual({ lines: 0, chars: 0 })
    // A line after the take goes to a batch of its own, written after the taken one settles.
    const third = outcome(queue.add('c\n', ['c']))
    queue.settle(taken)
    writer.writes[0]!.release()
    await writer.started(2)
    writer.writes[1]!.release()
    expect([await first, await second, await third]).toEqual(['written', 'written', 'written'])
    expect(writer.writes.map((w) => w.text)).toEqual(['a\n', 'c\n'])
  })

  it('rejects taken batches with the rewrite failure', async () => {
    const queue = createWriteQueue<string>({ write: async () => {} })
    const gate = queue.serial(() => new Promise<void>((resolve) => setImmediate(resolve)))
    const line = outcome(queue.add('a\n', ['a']))
    const taken = queue.take()
    queue.settle(taken, new Error('rename failed'))
    await gate
    expect(await line).toBe('rename failed')
  })

  it('idle waits for everything queued, failed or not', async () => {
    const writer = fakeWriter()
    const queue = createWriteQueue<string>({ write: writer.write })
    const line = outcome(queue.add('a\n', ['a']))
    let idle = false
    const done = queue.idle().then(() => (idle = true))
    await writer.started(1)
    expect(idle).toBe(false)
    writer.writes[0]!.fail(new Error('EIO'))
    await done
    expect(await line).toBe('EIO')
  })
})
