import { expect, it } from 'vitest'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'

describePg('the test cluster', () => {
  it('hands each caller an empty database of its own on a PostgreSQL the store supports', async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()])
    expect(a).not.toBe(b)
    const client = await connectTo(a)
    try {
      const version = await client.query('SHOW server_version_num')
      expect(Number(version.rows[0].server_version_num)).toBeGreaterThanOrEqual(130000)
      const tables = await client.query(
        "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
      )
      expect(tables.rows[0].n).toBe(0)
    } finally {
      await client.end()
    }
  })
})
