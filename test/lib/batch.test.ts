import { describe, expect, it } from 'vitest'
import { createBatcher } from '../../src/lib/batch.js'

/** A run the test settles: each call of `run` is a batch, answered or failed by hand. */
function scripted() {
  const batches: { inputs: readonly number[]; answer(): void; fail(e: Error): void }[] = []
  const run = (inputs: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push({ inputs, answer: () => resolve(inputs.map((n) => n * 10)), fail: reject })
    })
  return { batches, run }
}

describe('createBatcher', () => {
  it('runs a call at once when none is under way, and answers it', async () => {
    const { batches, run } = scripted()
    const batcher = createBatcher(run)
    const one = batcher.call(1)
    expect(batches.map((b) => b.inputs)).toEqual([[1]])
    batches[0]!.answer()
    expect(await one).toBe(10)
  })

  it('serves the calls made during a batch with one next batch, each its own answer', async () => {
    const { batches, run } = scripted()
    const batcher = createBatcher(run)
    const first = batcher.call(1)
    const later = [batcher.call(2), batcher.call(3), batcher.call(4)]
    // The next batch waits for the one under way: it must begin after the calls it serves.
    expect(batches).toHaveLength(1)
    batches[0]!.answer()
    await first
    await expect.poll(() => batches.length).toBe(2)
    expect(batches[1]!.inputs).toEqual([2, 3, 4])
    batches[1]!.answer()
    expect(await Promise.all(later)).toEqual([20, 30, 40])
    await batcher.idle()
  })

  it('a batch that fails rejects its own calls only, and the next batch runs', async () => {
    const { batches, run } = scripted()
    const batcher = createBatcher(run)
    const unhandled: unknown[] = []
    const note = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', note)
    try {
      const first = batcher.call(1)
      const second = batcher.call(2)
      batches[0]!.fail(new Error('gone'))
      await expect(first).rejects.toThrow('gone')
      await expect.poll(() => batches.length).toBe(2)
      batches[1]!.answer()
      expect(await second).toBe(20)
      // An unobserved rejection is reported on a later turn of the event loop.
      await new Promise(setImmediate)
      await new Promise(setImmediate)
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', note)
    }
  })
})

describe('createBatcher with eachAlone', () => {
  /** A run that refuses any batch holding a negative input, answering n * 10 otherwise. */
  const refusing = (runs: number[][]) => async (inputs: readonly number[]) => {
    runs.push([...inputs])
    if (inputs.some((n) => n < 0)) throw new Error('refused')
    return inputs.map((n) => n * 10)
  }

  it('runs each input of a refused batch alone: only the input that cannot be served fails', async () => {
    const runs: number[][] = []
    const batcher = createBatcher(refusing(runs), { eachAlone: () => true })
    const first = batcher.call(1)
    const rest = [batcher.call(2), batcher.call(-3), batcher.call(4)].map((p) =>
      p.then(
        (value) => ({ value }),
        (error: Error) => ({ error: error.message }),
      ),
    )
    expect(await first).toBe(10)
    expect(await Promise.all(rest)).toEqual([{ value: 20 }, { error: 'refused' }, { value: 40 }])
    expect(runs).toEqual([[1], [2, -3, 4], [2], [-3], [4]])
  })

  it('fails the whole batch when eachAlone does not accept the error', async () => {
    const runs: number[][] = []
    const batcher = createBatcher(refusing(runs), { eachAlone: () => false })
    const first = batcher.call(1)
    const rest = [batcher.call(2), batcher.call(-3)].map((p) => p.catch((e: Error) => e.message))
    await first
    expect(await Promise.all(rest)).toEqual(['refused', 'refused'])
    expect(runs).toEqual([[1], [2, -3]])
  })
})
