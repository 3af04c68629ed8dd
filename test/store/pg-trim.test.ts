import type { Sql } from 'postgres'
import { describe, expect, it } from 'vitest'
import { createTrimmer } from '../../src/store/postgres/trim.js'

/**
 * A client whose statements the test settles: each tagged-template call is a statement, and
 * `ids` what its text[] parameter (`{"msg_1","msg_2"}`) lists.
 */
function scriptedSql() {
  const statements: { ids: string[]; answer(ids: string[]): void; fail(e: Error): void }[] = []
  const sql = ((_strings: TemplateStringsArray, ...values: unknown[]) => {
    const list = values.find((v): v is string => typeof v === 'string' && v.startsWith('{'))
    const ids = JSON.parse(`[${list!.slice(1, -1)}]`) as string[]
    return new Promise((resolve, reject) => {
      statements.push({
        ids,
        answer: (kept) => resolve(kept.map((id) => ({ id }))),
        fail: reject,
      })
    })
  }) as unknown as Sql
  return { sql, statements }
}

describe('the PostgreSQL store’s trim after each send', () => {
  it('sends that commit while a trim runs share the next one, each told whether it is still stored', async () => {
    const { sql, statements } = scriptedSql()
    const trimmer = createTrimmer(sql, 10)
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
