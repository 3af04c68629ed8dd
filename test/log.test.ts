import { readFile, writeFile, mkdir, appendFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, type RunningCli } from './helpers/cli.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'

const running: RunningCli[] = []
afterEach(async () => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) await r.stop('SIGKILL')
})

async function setup() {
  const dir = await tempDir('sendbox-log-')
  await writeFiles(dir, { 'templates/welcome.liquid': 'Hello {{ name }}' })
  const db = join(dir, 'data', 'messages.jsonl')
  const args = ['--port', '0', '--templates', join(dir, 'templates'), '--db', db]
  return { dir, db, args }
}

async function start(args: string[]) {
  const cli = await startCli(args)
  running.push(cli)
  return cli
}

const send = (url: string, i: number) =>
  fetch(`${url}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_log_test', 'content-type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'a@acme.test',
      to: `u${i}@example.com`,
      subject: `n${i}`,
      templateVariables: { name: `N${i}` },
    }),
  })

const ids = async (url: string) => {
  const body = (await (await fetch(`${url}/_sandbox/api/messages?limit=1000`)).json()) as {
    messages: Array<{ id: string }>
  }
  return new Set(body.messages.map((m) => m.id))
}

describe('the log file (docs/log.md)', () => {
  it('survives a restart, starting with the header line', async () => {
    const { db, args } = await setup()
    const first = await start(args)
    const id = ((await (await send(first.url, 1)).json()) as { id: string }).id
    expect((await first.stop()).code).toBe(0)
    expect((await readFile(db, 'utf8')).split('\n')[0]).toBe('{"sendbox":"log","version":1}')
    const second = await start(args)
    expect(await ids(second.url)).toEqual(new Set([id]))
  })

  it('SIGKILL during concurrent sends loses no acknowledged message', async () => {
    const { args } = await setup()
    const first = await start(args)
    const acknowledged: string[] = []
    let i = 0
    let killed = false
    // Resolved by the sender that takes the 300th acknowledgement: the moment to kill.
    let reached300: () => void = () => {}
    const enough = new Promise<void>((resolve) => (reached300 = resolve))
    const sender = async () => {
      while (!killed) {
        try {
          const response = await send(first.url, i++)
          if (response.status === 201)
            acknowledged.push(((await response.json()) as { id: string }).id)
          if (acknowledged.length >= 300) reached300()
        } catch {
          return // the server is gone
        }
      }
    }
    const senders = Array.from({ length: 8 }, sender)
    await enough
    first.child.kill('SIGKILL')
    killed = true
    await Promise.all(senders)
    await first.exited
    const second = await start(args)
    const stored = await ids(second.url)
    const lost = acknowledged.filter((id) => !stored.has(id))
    expect(lost).toEqual([])
    expect(acknowledged.length).toBeGreaterThanOrEqual(300)
  })

  it('a second server on the same log refuses to start; a killed one does not block the next', async () => {
    const { db, args } = await setup()
    const first = await start(args)
    const second = await runCli(args)
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(db)
    expect(second.stderr).toMatch(/pid \d+/)
    first.child.kill('SIGKILL')
    await first.exited
    const third = await start(args)
    expect((await fetch(`${third.url}/_sandbox/api/health`)).status).toBe(200)
  })

  it('a file that is not a sendbox log stops the start and is left untouched', async () => {
    const { db, args } = await setup()
    await mkdir(join(db, '..'), { recursive: true })
    const content = '[{"this":"is someone else\'s file"}]\n'
    await writeFile(db, content)
    const result = await runCli(args)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(db)
    expect(result.stderr).toMatch(/not a sendbox (message )?log/i)
    expect(await readFile(db, 'utf8')).toBe(content)
  })

  it('a torn last line is dropped with a warning', async () => {
    const { db, args } = await setup()
    const first = await start(args)
    const id = ((await (await send(first.url, 1)).json()) as { id: string }).id
    await first.stop()
    await appendFile(db, '{"id":"msg_torn","status":"se')
    const second = await start(args)
    expect(await ids(second.url)).toEqual(new Set([id]))
    await expect
      .poll(() => second.output().stderr + second.output().stdout)
      .toMatch(/torn|incomplete|dropped/i)
  })

  it('--max-messages drops the oldest, and health says how many', async () => {
    const { args } = await setup()
    const cli = await start([...args, '--max-messages', '3'])
    for (let i = 0; i < 5; i++) await send(cli.url, i)
    const health = (await (await fetch(`${cli.url}/_sandbox/api/health`)).json()) as {
      messages: number
      dropped: number
    }
    expect(health).toMatchObject({ messages: 3, dropped: 2 })
    const subjects = (
      (await (await fetch(`${cli.url}/_sandbox/api/messages`)).json()) as {
        messages: Array<{ subject: string }>
      }
    ).messages.map((m) => m.subject)
    expect(subjects).toEqual(['n4', 'n3', 'n2'])
  })

  it('--memory keeps nothing on disk', async () => {
    const { dir } = await setup()
    const cli = await start(['--port', '0', '--templates', join(dir, 'templates'), '--memory'])
    await send(cli.url, 1)
    await cli.stop()
    const { readdir } = await import('node:fs/promises')
    expect(await readdir(dir)).toEqual(['templates'])
  })
})
