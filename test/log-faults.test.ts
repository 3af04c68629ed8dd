import { readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server/index.js'
import { faultyFs } from './store/faulty-fs.js'
import { afterRestart, wellFormed } from './store/log-check.js'
import { TOKEN, errorOf, startTestSandbox, tempDir, writeFiles } from './helpers/sandbox.js'

/**
 * The log under faults as a user meets them (issue 26, docs/log-faults.md): the real server
 * over HTTP, a full disk or lost permissions through the log's file-system seam, the folder
 * removed with fs.rm between two real sends; then a restart finds every acknowledged send.
 */

const body = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.com',
  subject: 'Hi',
  templateVariables: { name: 'Ada' },
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function send(url: string): Promise<Response> {
  return fetch(`${url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function health(url: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${url}/_sandbox/api/health`)).json()) as Record<string, unknown>
}

/** The event stream's `log` events, as they come. */
function logEvents(url: string) {
  const abort = new AbortController()
  const seen: { state: string; reason?: string }[] = []
  let notify = () => {}
  const done = (async () => {
    const response = await fetch(`${url}/_sandbox/api/events`, { signal: abort.signal })
    const decoder = new TextDecoder()
    let text = ''
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true })
      for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
        const frame = text.slice(0, end)
        text = text.slice(end + 2)
        const data = /^data: (.*)$/m.exec(frame)?.[1]
        if (frame.startsWith('event: log\n') && data) {
          seen.push(JSON.parse(data) as { state: string })
          notify()
        }
      }
    }
  })().catch(() => {})
  closers.push(async () => {
    abort.abort()
    await done
  })
  return {
    seen,
    /** Resolves once `n` log events came. */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        notify = () => seen.length >= n && resolve()
        notify()
      }),
  }
}

describe.each(['ENOSPC', 'EACCES'])('a write that fails with %s, over HTTP', (code) => {
  it('answers 507 log_write_failed naming the file; health and the stream say so; the next send works', async () => {
    const dir = await tempDir()
    closers.push(() => rm(dir, { recursive: true, force: true }))
    await writeFiles(join(dir, 'templates'), { 'welcome.liquid': 'Hello {{ name }}' })
    const file = join(dir, '.sendbox', 'messages.jsonl')
    const disk = faultyFs()
    const server: RunningServer = await startServer(
      { port: 0, templates: join(dir, 'templates'), db: file, fixtures: join(dir, 'fixtures') },
      { open: false, logs: false },
      { logFs: disk.fs },
    )
    closers.push(() => server.close())
    const stream = logEvents(server.url)
    expect((await health(server.url)).log).toBe('ok')
    const first = await send(server.url)
    expect(first.status).toBe(201)

    disk.fail(code)
    for (let i = 0; i < 2; i++) {
      const failed = await send(server.url)
      expect(failed.status).toBe(507)
      const error = await errorOf(failed)
      expect(error.code).toBe('log_write_failed')
      expect(error.message).toContain(file)
      expect(error.message).toContain(code)
      expect(error.details).toEqual([{ file, reason: code }])
    }
    expect(await health(server.url)).toMatchObject({
      log: 'write_failed',
      logError: { file, reason: code },
    })
    // Reads keep working, and list only what was written.
    const listed = await fetch(`${server.url}/_sandbox/api/messages`)
    expect(((await listed.json()) as { total: number }).total).toBe(1)

    disk.heal()
    const third = await send(server.url)
    expect(third.status).toBe(201)
    expect(await health(server.url)).toMatchObject({ log: 'ok' })
    expect((await health(server.url)).logError).toBeUndefined()
    await stream.until(2)
    expect(stream.seen.map((e) => [e.state, e.reason])).toEqual([
      ['write_failed', code],
      ['ok', undefined],
    ])

    const ids = [(await third.json()) as { id: string }, (await first.json()) as { id: string }]
    await server.close()
    expect(await afterRestart(file)).toEqual(ids.map((m) => m.id))
  })
})

describe('the log folder removed while the server runs', () => {
  it('fs.rm between two real sends: the second send is kept, the log is written anew, both survive a restart', async () => {
    const dir = await tempDir()
    closers.push(() => rm(dir, { recursive: true, force: true }))
    const folder = join(dir, '.sendbox')
    const file = join(folder, 'messages.jsonl')
    const sandbox = await startTestSandbox(
      { 'welcome.liquid': 'Hello {{ name }}' },
      { memory: false, db: file },
    )
    closers.push(() => sandbox.close())
    const first = await sandbox.send(body)
    expect(first.status).toBe(201)
    await rm(folder, { recursive: true, force: true })
    const second = await sandbox.send(body)
    expect(second.status).toBe(201)
    expect((await stat(folder)).mode & 0o777).toBe(0o700)
    expect(await readFile(join(folder, '.gitignore'), 'utf8')).toMatch(/^\*$/m)
    expect(await readFile(`${file}.lock`, 'utf8')).toContain(`"pid":${process.pid}`)
    const ids = [second, first]
    const sent = await Promise.all(ids.map(async (r) => ((await r.json()) as { id: string }).id))
    expect(await wellFormed(file)).toEqual(sent.slice().reverse())
    await sandbox.close()
    expect(await afterRestart(file)).toEqual(sent)
  })
})
