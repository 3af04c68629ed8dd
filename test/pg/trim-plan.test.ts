import { expect, it } from 'vitest'
import { sql } from '../../src/store/postgres/client.js'
import { trimStatement } from '../../src/store/postgres/trim.js'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'
import { startTestSandbox } from '../helpers/sandbox.js'

const TEMPLATES = { 'hello.liquid': '---\nsubject: Hi\n---\n<p>Hello {{ name }}</p>' }

/** The plan's nodes, depth first. */
function* nodesOf(plan: Record<string, unknown>): Generator<Record<string, unknown>> {
  yield plan
  for (const child of (plan.Plans as Record<string, unknown>[] | undefined) ?? [])
    yield* nodesOf(child)
}

describePg('the trim past --max-messages on a large table', () => {
  it('reads the messages by index only: no scan of the whole table, whatever the cut', async () => {
    const url = await freshDatabase()
    // The schema, from a sandbox's start.
    await (await startTestSandbox(TEMPLATES, { memory: undefined, store: url })).close()
    const client = await connectTo(url)
    try {
      await client.query(`
        INSERT INTO sendbox_messages (id, created_at, project, status, template_lc, subject_lc,
          from_lc, to_lc, recipients, bytes, html, text, record)
        SELECT 'msg_' || g, now(), 'default', 'delivered', 'hello', 'hi', 'shop@acme.test',
          'ada@example.com', ARRAY['ada@example.com'], 100, '""', '""', '{}'
        FROM generate_series(1, 20000) g`)
      await client.query('ANALYZE sendbox_messages')
      for (const max of [20_000 - 1, 10_000, 100]) {
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
          sql`EXPLAIN (FORMAT JSON) ${trimStatement(max, ['msg_1'])}`,
        )
        const row = rows[0]!
        const scans = [...nodesOf(row['QUERY PLAN'][0].Plan)]
          .filter((node) => node['Node Type'] === 'Seq Scan')
          .map((node) => node['Relation Name'])
        expect(scans).not.toContain('sendbox_messages')
      }
    } finally {
      await client.end()
    }
  })
})
