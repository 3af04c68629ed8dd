import type { Db } from '../../src/store/postgres/client.js'
import { describe, expect, it } from 'vitest'
import { createTrimmer } from '../../src/store/postgres/trim.js'

/**
 * A client whose statements the test settles: each query is a statement, and `ids` what its
 * text[] parameter (`{"msg_1","msg_2"}`) lists.
 */
function scriptedDb() {
  const statements: { ids: string[]; answer(ids: string[]): void; fail(e: Error): void }[] = []
  const db = {
    query: ({ values = [] }: { values?: unknown[] }) => {
      const list = values.find((v): v is string => typeof v === 'string' && v.startsWith('{'))
      const ids = JSON.parse(`[${list!.slice(1, -1)}]`) as string[]
      return new Promise((resolve, reject) => {
        statements.push({
          ids,
          answer: (kept) => resolve({ rows: kept.map((id) => ({ id })) }),
          fail: reject,
        })
      })
    },
  } as unknown as Db
  return { db, statements }
}

describe('the PostgreSQL store’s trim after each send', () => {
  it('sends that commit while a trim runs share the next one, each told whether it is still stored', async () => {
    const { db, statements } = scriptedDb()
    const trimmer = createTrimmer(db, 10)
    const first = trimmer.trim('msg_1')
    const second = trimmer.trim('msg_2')
    const third = trimmer.trim('msg_3')
    expect(statements.map((s) => s.ids)).toEqual([['msg_1']])
    statements[0]!.answer(['msg_1'])
    expect(await first).toBe(true)
    await expect.poll(() => statements.length).toBe(2)
    expect(statements[1]!.ids).toEqual(['msg_2', 'msg_3'])
    // msg_3 was cleared (or cut) meanwhile: only msg_2 is still there.
    statements[1]!.answer(['msg_2'])
    expect([await second, await third]).toEqual([true, false])
  })
})
