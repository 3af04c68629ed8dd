import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startSendbox } from '../../src/index.js'
import { tempDir, TOKEN } from '../helpers/sandbox.js'

/** docs/security.md, files: the log, its lock and its folder are owner-only, and stay so. */

const mode = async (path: string) => (await stat(path)).mode & 0o777
const welcome = {
  template: 'welcome',
  from: 'a@acme.test',
  to: 'b@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
}

async function project() {
  const dir = await tempDir('sendbox-files-')
  await mkdir(join(dir, 'templates'))
  await writeFile(join(dir, 'templates', 'welcome.liquid'), 'Hi {{ name }}')
  return dir
}

const start = (dir: string, db = '.sendbox/messages.jsonl') =>
  startSendbox({ port: 0, cwd: dir, templates: 'templates', fixtures: 'fixtures', db })

async function send(url: string, n = 1): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(welcome),
    })
    expect(response.status).toBe(201)
    ids.push(((await response.json()) as { id: string }).id)
  }
  return ids
}

describe('the log on disk', () => {
  it('creates its folder 0700 with a .gitignore of *, the log and its lock 0600', async () => {
    const dir = await project()
    const sandbox = await start(dir)
    try {
      await send(sandbox.url)
      expect(await mode(join(dir, '.sendbox'))).toBe(0o700)
      expect(await mode(join(dir, '.sendbox', 'messages.jsonl'))).toBe(0o600)
      expect(await mode(join(dir, '.sendbox', 'messages.jsonl.lock'))).toBe(0o600)
      expect((await readFile(join(dir, '.sendbox', '.gitignore'), 'utf8')).split('\n')).toContain(
        '*',
      )
    } finally {
      await sandbox.close()
    }
  })

  it("keeps the log out of git status in the user's project", async () => {
    const dir = await project()
    execFileSync('git', ['init', '-q'], { cwd: dir })
    const sandbox = await start(dir)
    try {
      await send(sandbox.url)
      const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
        cwd: dir,
        encoding: 'utf8',
      })
      expect(status).not.toContain('.sendbox')
      expect(status).toContain('templates/welcome.liquid')
    } finally {
      await sandbox.close()
    }
  })

  it('writes no .gitignore into a folder it did not create', async () => {
    const dir = await project()
    await mkdir(join(dir, 'logs'), { mode: 0o755 })
    const sandbox = await start(dir, 'logs/messages.jsonl')
    await sandbox.close()
    expect(await readdir(join(dir, 'logs'))).toEqual(['messages.jsonl'])
    expect(await mode(join(dir, 'logs'))).toBe(0o755)
    expect(await mode(join(dir, 'logs', 'messages.jsonl'))).toBe(0o600)
  })

  it('compaction keeps the mode: 0600 stays 0600, and a chmod the user made survives', async () => {
    const dir = await project()
    const file = join(dir, '.sendbox', 'messages.jsonl')
    for (const chosen of [0o600, 0o640]) {
      const sandbox = await start(dir)
      const ids = await send(sandbox.url, 3)
      await chmod(file, chosen)
      // A delete leaves a dead line; closing compacts (temp file, rename).
      expect(
        (await fetch(`${sandbox.url}/_sandbox/api/messages/${ids[0]}`, { method: 'DELETE' }))
          .status,
      ).toBe(204)
      const before = (await stat(file)).ino
      await sandbox.close()
      expect((await stat(file)).ino, 'the file was rewritten').not.toBe(before)
      expect(await mode(file)).toBe(chosen)
    }
    // Compaction at start, too.
    await writeFile(file, `${await readFile(file, 'utf8')}{"op":"clear"}\n`)
    await chmod(file, 0o600)
    const reopened = await start(dir)
    await reopened.close()
    expect(await mode(file)).toBe(0o600)
  })
})
