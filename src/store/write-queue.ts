/**
 * The adapter's one queue of file operations, and group commit of appends on it.
 *
 * Every file operation (a batch of appended lines, a compaction, a check, open, close) runs in
 * turn on one promise chain, so appends issued during a compaction land in the new file, in
 * order. Lines arriving while a write is in flight join the next batch: one write(2) for all of
 * them, and every append of a batch settles with that write. A rewrite from memory can take
 * (absorb) the batches still queued, whose lines memory holds already: they then settle with it.
 */

export interface Batch<R> {
  text: string
  count: number
  /** One per line of `text`: the record it is, or null for a tombstone or other operation. */
  records: (R | null)[]
  written: Promise<void>
  /** Set when a rewrite from memory took this batch's lines: `failure` then says how that went. */
  absorbed?: { failure: unknown }
}

/** Batches taken by a rewrite from memory, with their lines and characters summed. */
export interface Taken<R> {
  batches: Batch<R>[]
  lines: number
  chars: number
}

export interface WriteQueueOptions<R> {
  /** Writes one batch's lines; a rejection rejects that batch's appends, and no others. */
  write(batch: Batch<R>): Promise<void>
  /** After a batch settled, however it did (written, failed, or absorbed by a rewrite). */
  settled?(batch: Batch<R>): void
}

/**
 * Long because it is one object: the serial queue and the batch filling are shared by every
 * operation, each under twenty lines.
 *
 * @example
 * const queue = createWriteQueue({ write: (batch) => fs.appendFile(file, batch.text) })
 * await Promise.all([queue.add('a\n', [null]), queue.add('b\n', [null])]) // one write: "a\nb\n"
 */
export function createWriteQueue<R>(options: WriteQueueOptions<R>) {
  let queue: Promise<unknown> = Promise.resolve()
  /** The batch still taking lines; detached when its write starts (group commit). */
  let filling: Batch<R> | null = null
  /** Batches queued and not yet written (the filling one, and any a compaction detached). */
  const waiting = new Set<Batch<R>>()

  /** Runs `op` after every operation queued before it; its failure does not stop the ones after. */
  function serial<T>(op: () => Promise<T>): Promise<T> {
    const result = queue.then(op)
    queue = result.catch(() => {})
    return result
  }

  async function flush(batch: Batch<R>): Promise<void> {
    if (filling === batch) filling = null
    waiting.delete(batch)
    try {
      if (batch.absorbed) {
        if (batch.absorbed.failure !== undefined) throw batch.absorbed.failure
        return
      }
      await options.write(batch)
    } finally {
      options.settled?.(batch)
    }
  }

  function sum(batches: Iterable<Batch<R>>): { lines: number; chars: number } {
    let lines = 0
    let chars = 0
    for (const batch of batches) {
      lines += batch.count
      chars += batch.text.length
    }
    return { lines, chars }
  }

  return {
    serial,
    /** Queues lines (`records`: one per line of `text`); resolves once their batch is written. */
    add(text: string, records: (R | null)[]): Promise<void> {
      let batch = filling
      if (!batch) {
        const b: Batch<R> = { text: '', count: 0, records: [], written: Promise.resolve() }
        b.written = serial(() => flush(b))
        batch = filling = b
        waiting.add(b)
      }
      batch.text += text
      batch.count += records.length
      batch.records.push(...records)
      return batch.written
    },
    /** Lines added from now on go to a new batch, queued after whatever is queued by then. */
    detach(): void {
      filling = null
    },
    /** The lines and characters of the batches queued and not yet written. */
    queued: () => sum(waiting),
    /**
     * Takes the batches still queued (and `current`, one being written) for a rewrite from
     * memory; `settle` then says how it went. Lines added later go to a new batch.
     */
    take(current?: Batch<R>): Taken<R> {
      const batches = [...waiting, ...(current ? [current] : [])]
      waiting.clear()
      filling = null
      return { batches, ...sum(batches) }
    },
    /** Settles taken batches: their appends resolve (`failure` undefined) or reject with it. */
    settle(taken: Taken<R>, failure?: unknown): void {
      for (const batch of taken.batches) batch.absorbed = { failure }
    },
    /** Resolves once everything queued so far has settled. */
    idle: (): Promise<void> => queue.then(() => {}),
  }
}

export type WriteQueue<R> = ReturnType<typeof createWriteQueue<R>>
