import { describe, expect, it } from 'vitest'
import { createEventBus } from '../../src/core/events.js'
import { createMemoryRejectionTable } from '../../src/store/memory-rejections.js'
import { createRejectionLog } from '../../src/core/rejections.js'
import { waitForMessage, WaitTimeoutError } from '../../src/core/wait.js'
import type { MessageFilter, MessageRecord, MessageStore } from '../../src/store/types.js'

/**
 * `after: 'now'` on a store whose cursor comes later (PostgreSQL's is a query): what the wait
 * hears while the cursor is on its way is judged by it once it has come. A store here stands in
 * for the database, so the moment an event arrives is the test's to choose (over HTTP it is a
 * race of a millisecond).
 */

/** A store of records placed by seq, whose cursor resolves when the test says so. */
function storeWithLateCursor() {
  const seqs = new Map<string, number>()
  let answer: (cursor: string) => void = () => {}
  const cursor = new Promise<string>((resolve) => {
    answer = resolve
  })
  const log = {
    cursor: () => cursor,
    matches: (record: MessageRecord, filter: MessageFilter) =>
      filter.after === undefined || (seqs.get(record.id) ?? 0) > Number(filter.after),
    latest: async () => undefined,
    list: async () => ({ messages: [], total: 1, cursor: '1' }),
  } as unknown as MessageStore
  const record = (id: string, seq: number) => {
    seqs.set(id, seq)
    return { id, status: 'delivered', to: [] } as unknown as MessageRecord
  }
  return { log, record, answer: (cursor: string) => answer(cursor) }
}

function sandboxOn(log: MessageStore) {
  return {
    log,
    events: createEventBus(),
    onClose: () => () => {},
    rejections: createRejectionLog(createMemoryRejectionTable(100)),
  }
}

describe("waitForMessage({ after: 'now' }) while the store's cursor is on its way", () => {
  it('is not answered by an older message whose state changes meanwhile', async () => {
    const store = storeWithLateCursor()
    const ctx = sandboxOn(store.log)
    const older = store.record('msg_older', 1)
    const waited = waitForMessage(ctx, { after: 'now', timeout: 100 }).catch((e: unknown) => e)
    ctx.events.emit({
      type: 'status',
      record: older,
      recipient: 0,
      event: { type: 'delivered', at: new Date().toISOString() },
    })
    store.answer('1')
    expect(await waited).toBeInstanceOf(WaitTimeoutError)
  })

  // The cursor after the message, or its own seq: the database stored the send (on another of
  // its connections) before it answered the cursor, and the message was still stored after the
  // call. The event heard before the cursor came, or after (it was announced late).
  it.each([
    ['once the cursor says it is newer', '1', 'before'],
    ['even when the cursor, answered later, counts it', '2', 'before'],
    ['even when its event comes after a cursor that counts it', '2', 'after'],
  ])('is answered by a message stored meanwhile, %s', async (_, cursor, heard) => {
    const store = storeWithLateCursor()
    const ctx = sandboxOn(store.log)
    const stored = store.record('msg_stored', 2)
    const waited = waitForMessage(ctx, { after: 'now', timeout: 5000 })
    const announce = () => ctx.events.emit({ type: 'message', record: stored })
    if (heard === 'before') announce()
    store.answer(cursor)
    // The wait took the cursor first (it asked first): it has come by the time this goes on.
    await store.log.cursor()
    if (heard === 'after') announce()
    expect((await waited).id).toBe('msg_stored')
  })
})
