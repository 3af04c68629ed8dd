import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { WAIT_MAX_MS } from '../../src/core/wait.js'
import { HEARTBEAT_MS } from '../../src/inspector/events.js'
import { ROOT, type RunningCli, startCli } from '../helpers/cli.js'
import { fencedBlocks } from '../helpers/docs.js'
import { connectTo, describePg, freshDatabase } from '../helpers/postgres.js'
import { jsonOf } from '../helpers/http.js'
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js'

/**
 * docs/team.md as written: its `sh` block starts two sendbox processes on one database (the
 * URL and ports made this test's), and its load balancer's check is the health route they answer.
 */
describePg('docs/team.md', () => {
  const running: RunningCli[] = []
  afterAll(() => Promise.all(running.map((p) => p.stop())))

  it('starts two processes on one database as written, one sandbox behind one health check', async () => {
    const text = await readFile(join(ROOT, 'docs/team.md'), 'utf8')
    const [commands] = fencedBlocks(text, 'docs/team.md').filter((b) => b.lang === 'sh')
    const lines = commands!.body.split('\n')
    expect(lines[0]).toMatch(/^export SENDBOX_STORE='postgres:\/\/[^']+'$/)
    const serves = lines.filter((l) => l.startsWith('npx sendbox serve '))
    expect(serves).toHaveLength(2)
    // The doc's user and password, on this test's cluster (trust authentication ignores them).
    const documented = new URL(/'([^']+)'/.exec(lines[0]!)![1]!)
    const store = new URL(await freshDatabase())
    // The doc's user, owning the database as a team's would (no superuser: pg_trgm is a trusted
    // extension); trust authentication ignores its password.
    const admin = await connectTo(store.href)
    try {
      await admin.query(
        `DO $$ BEGIN CREATE ROLE "${documented.username}" LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
      )
      await admin.query(
        `ALTER DATABASE "${store.pathname.slice(1)}" OWNER TO "${documented.username}"`,
      )
    } finally {
      await admin.end()
    }
    store.username = documented.username
    store.password = documented.password
    for (const line of serves) {
      const args = line
        .replace(/^npx sendbox /, '')
        .replace(/--port \d+/, '--port 0')
        .split(/\s+/)
      running.push(await startCli(args, { env: { SENDBOX_STORE: store.href } }))
    }
    const [one, two] = running as [RunningCli, RunningCli]
    // The first start made the tables and says so, once; both say the format they run.
    const made = `Created sendbox's tables in the PostgreSQL store 127.0.0.1:${store.port}${store.pathname} (format ${SCHEMA_VERSION}).`
    expect(running.map((p) => Object.values(p.output()).join('').includes(made))).toEqual([
      true,
      false,
    ])
    for (const process of running) {
      const { stdout, stderr } = process.output()
      expect(stdout).toContain(
        `Store      PostgreSQL 127.0.0.1:${store.port}${store.pathname}, format ${SCHEMA_VERSION}`,
      )
      expect(stdout + stderr).not.toContain(documented.password)
    }
    const waiting = fetch(
      `${two.url}/_sandbox/api/messages/wait?recipient=team@example.com&after=now&timeout=5000`,
    )
    // The wait is registered once its request is in: the health's subscriber count says so.
    for (;;) {
      const health = await jsonOf(fetch(`${two.url}/_sandbox/api/health`))
      if (health.subscribers > 0) break
    }
    const variables = JSON.parse(await readFile(join(ROOT, 'fixtures/welcome.json'), 'utf8'))
    const sent = await fetch(`${one.url}/messages`, {
      method: 'POST',
      headers: { authorization: 'token sandbox_team', 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'hello@acme.test',
        to: 'team@example.com',
        subject: 'Welcome',
        templateVariables: variables,
      }),
    })
    expect(sent.status).toBe(201)
    const { id } = await jsonOf(sent)
    const heard = await waiting
    expect(heard.status).toBe(200)
    expect((await jsonOf(heard)).id).toBe(id)

    const [config] = fencedBlocks(text, 'docs/team.md').filter((b) => b.body.includes('httpchk'))
    const check = /option httpchk GET (\S+)/.exec(config!.body)![1]!
    for (const process of running) expect((await fetch(`${process.url}${check}`)).status).toBe(200)
  })
})

describe('docs/team.md: the load balancer', () => {
  it("waits longer than the longest wait and than the event stream's heartbeat", async () => {
    const text = await readFile(join(ROOT, 'docs/team.md'), 'utf8')
    const [config] = fencedBlocks(text, 'docs/team.md').filter((b) => b.body.includes('httpchk'))
    expect(config!.body).toContain('http-check expect status 200')
    const timeout = Number(/timeout server (\d+)s/.exec(config!.body)![1]) * 1000
    expect(timeout).toBeGreaterThan(WAIT_MAX_MS)
    expect(timeout).toBeGreaterThan(HEARTBEAT_MS)
    // The prose says the same figures.
    const prose = text.replace(/\s+/g, ' ')
    expect(prose).toContain(`a wait may last (${WAIT_MAX_MS / 1000} s)`)
    expect(prose).toContain(`heartbeat (every ${HEARTBEAT_MS / 1000} s)`)
  })
})
