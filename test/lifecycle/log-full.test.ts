import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../src/server/index.js'
import { errorOf, TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'
import { faultyFs } from '../store/faulty-fs.js'

/**
 * The delivery engine on a full disk (issue 31): a bounce writes the recipient's new state and the
 * address's suppression in one batch; when that write fails, every promise of it must have a
 * listener, or Node ends the process (UNHANDLED REJECTION: LogWriteError). docs/log-faults.md:
 * a simulated event answers 507, an automatic step is dropped quietly, the server goes on.
 */

const closers: (() => Promise<void>)[] = []
const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled)
  for (const close of closers.splice(0)) await close()
})

async function start(deliveryDelay: number) {
  const dir = await tempDir()
  closers.push(() => rm(dir, { recursive: true, force: true }))
  await writeFiles(join(dir, 'templates'), { 'welcome.liquid': 'Hello' })
  const disk = faultyFs()
  const server: RunningServer = await startServer(
    {
      port: 0,
      templates: join(dir, 'templates'),
      db: join(dir, '.sendbox', 'messages.jsonl'),
      fixtures: join(dir, 'fixtures'),
      deliveryDelay,
    },
    { open: false, logs: false },
    { logFs: disk.fs },
  )
  closers.push(() => server.close())
  unhandled.length = 0
  process.on('unhandledRejection', onUnhandled)
  const send = async (to: string) => {
    const response = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'welcome', from: 'a@acme.test', to, subject: 'Hi' }),
    })
    expect(response.status).toBe(201)
    return ((await response.json()) as { id: string }).id
  }
  const health = async () =>
    (await (await fetch(`${server.url}/_sandbox/api/health`)).json()) as { log: string }
  return { server, disk, send, health }
}

describe('a bounce on a full disk', () => {
  it('simulated: answers 507 log_write_failed, and the process lives on', async () => {
    const { server, disk, send, health } = await start(0)
    const id = await send('ada@example.com')
    await expect
      .poll(async () => (await fetch(`${server.url}/_sandbox/api/messages/${id}`)).json())
      .toMatchObject({ status: 'delivered' })
    disk.fail('ENOSPC')
    const response = await fetch(`${server.url}/_sandbox/api/messages/${id}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'bounced' }),
    })
    expect(response.status).toBe(507)
    expect((await errorOf(response)).code).toBe('log_write_failed')
    // A round trip later every rejection of that write has been seen or reported.
    expect((await health()).log).toBe('write_failed')
    expect(unhandled).toEqual([])
    disk.heal()
    expect(await send('bob@example.com')).toMatch(/^msg_/)
  })

  it('automatic (--delivery-delay): the step is dropped quietly, and the process lives on', async () => {
    const { disk, send, health } = await start(100)
    await send('bounce@example.com')
    disk.fail('ENOSPC')
    // The step's write is the one that fails: wait for it, not for a time.
    await expect.poll(() => disk.state.failed).toBeGreaterThan(0)
    expect((await health()).log).toBe('write_failed')
    expect(unhandled).toEqual([])
    disk.heal()
    expect(await send('bob@example.com')).toMatch(/^msg_/)
  })
})
