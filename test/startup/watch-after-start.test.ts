import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { nextChange } from '../templates/helpers.js'
import { TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'

let server: RunningServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

// The server starts its template watcher once its port is open; a file written between "ready"
// and "watching" is taken in all the same (the catalog compares the folders with what it read).
describe('a template written right after start', () => {
  it('is reloaded: a new one is added, a changed one changes', async () => {
    const dir = await tempDir()
    const templatesDir = join(dir, 'templates')
    await writeFiles(templatesDir, { 'old.liquid': 'v1' })
    server = await startServer(
      {
        port: 0,
        memory: true,
        templates: templatesDir,
        fixtures: join(dir, 'fixtures'),
        snapshots: join(dir, 'snapshots'),
      },
      { open: false, logs: false },
    )
    const { catalog } = server.ctx
    const added = nextChange(catalog, (c) => c.slug === 'fresh' && c.change === 'added')
    const changed = nextChange(catalog, (c) => c.slug === 'old' && c.change === 'changed')
    await writeFile(join(templatesDir, 'fresh.liquid'), 'Hello {{ name }}')
    await writeFile(join(templatesDir, 'old.liquid'), 'v2, longer')
    await Promise.all([added, changed])

    const answer = await fetch(`${server.url}/templates/fresh`, {
      headers: { authorization: `token ${TOKEN}` },
    })
    expect(answer.status).toBe(200)
    expect(catalog.lookup('old')).toMatchObject({ ok: true })
    const old = catalog.lookup('old')
    expect(old.ok && old.render({}).ok && old.render({})).toMatchObject({ html: 'v2, longer' })
  })
})
