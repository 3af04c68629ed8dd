import postgres from 'postgres'
import { expect, it } from 'vitest'
import { describePg, freshDatabase } from '../helpers/postgres.js'

describePg('the test cluster', () => {
  it('hands each caller an empty database of its own on a PostgreSQL the store supports', async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()])
    expect(a).not.toBe(b)
    const sql = postgres(a, { max: 1 })
    try {
      const [{ server_version_num }] = (await sql`SHOW server_version_num`) as unknown as [
        { server_version_num: string },
      ]
      expect(Number(server_version_num)).toBeGreaterThanOrEqual(130000)
      const tables = await sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`
      expect(tables[0]!.n).toBe(0)
    } finally {
      await sql.end()
    }
  })
})
