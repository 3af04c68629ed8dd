import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectSendbox,
  SendboxUnreachableError,
  UrlNotInMessageError,
  MessageNotFoundError,
  WaitTimeoutError,
  type SendboxClient,
} from '../src/index.js'
import { type RunningCli, startCli } from './helpers/cli.js'
import { tempDir, TOKEN, writeFiles } from './helpers/sandbox.js'
import { INBOX_TEMPLATES } from './helpers/inbox-templates.js'

/** docs/ci.md#the-programmatic-api, `connectSendbox`: the programmatic API over HTTP, against a sandbox the CLI runs. */

let cli: RunningCli
let sandbox: SendboxClient
beforeAll(async () => {
  const dir = await tempDir('sendbox-connect-')
  await writeFiles(join(dir, 'templates'), INBOX_TEMPLATES)
  cli = await startCli(['--port', '0', '--memory', '--templates', join(dir, 'templates')])
  sandbox = connectSendbox(cli.url)
})
afterAll(async () => {
  await sandbox?.close()
  await cli?.stop()
})

async function send(to: string, template: string, templateVariables: object = {}) {
  const response = await fetch(`${cli.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template,
      from: 'a@acme.test',
      to,
      subject: template,
      templateVariables,
    }),
  })
  return response
}

describe('connectSendbox', () => {
  it('reads messages with their links and codes, waits, and clears', async () => {
    const wait = sandbox.waitForMessage({ recipient: 'ada@example.com', after: 'now' })
    expect((await send('ada@example.com', 'sign-in', { code: '482 913' })).status).toBe(201)
    const message = await wait
    expect(message.codes).toEqual(['482913'])
    const [listed] = await sandbox.messages({ recipient: 'ada@example.com' })
    expect(listed!.id).toBe(message.id)
    await sandbox.clear({ recipient: 'ada@example.com' })
    expect(await sandbox.messages({ recipient: 'ada@example.com' })).toEqual([])
  })

  it('gives inboxes kept apart, and a timeout that names the address and the rejected sends to it', async () => {
    const [a, b] = [sandbox.inbox(), sandbox.inbox()]
    const link = a.waitForLink({ text: 'reset', timeout: 10_000 })
    const code = b.waitForCode({ timeout: 10_000 })
    await send(b.address, 'sign-in', { code: '7310' })
    await send(a.address, 'reset', { url: 'https://acme.test/reset?a' })
    expect(await link).toBe('https://acme.test/reset?a')
    expect(await code).toBe('7310')
    expect((await a.messages()).map((m) => m.template)).toEqual(['reset'])
    expect((await send(b.address, 'reset')).status).toBe(422)
    const error = await b.waitForLink({ text: 'reset', timeout: 50 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WaitTimeoutError)
    expect((error as Error).message).toContain(`${b.address} received 1 message`)
    expect((error as Error).message).toContain('missing_variables')
    await a.clear()
    expect(await a.messages()).toEqual([])
    expect(await b.messages()).toHaveLength(1)
  })

  it('simulates, with the in-process errors; arms faults; lists rejections, webhooks and suppressions', async () => {
    await send('bounce@example.com', 'welcome')
    const [sent] = await sandbox.messages({ recipient: 'bounce@example.com' })
    const clicked = await sandbox.simulate(sent!.id, {
      type: 'clicked',
      url: 'https://acme.test/app',
    })
    expect(clicked.recipients[0]!.events.at(-1)).toMatchObject({ type: 'clicked', simulated: true })
    await expect(
      sandbox.simulate(sent!.id, { type: 'clicked', url: 'https://elsewhere.test/' }),
    ).rejects.toBeInstanceOf(UrlNotInMessageError)
    await expect(sandbox.simulate('msg_missing', { type: 'opened' })).rejects.toBeInstanceOf(
      MessageNotFoundError,
    )
    await expect(sandbox.simulate(sent!.id, { type: 'nope' as 'opened' })).rejects.toBeInstanceOf(
      TypeError,
    )
    await sandbox.waitForMessage({ recipient: 'bounce@example.com', status: 'bounced' })
    expect((await sandbox.suppressions()).map((s) => s.address)).toContain('bounce@example.com')
    expect((await sandbox.unsuppress({ address: 'bounce@example.com' })).length).toBe(1)
    expect(await sandbox.suppressions()).toEqual([])
    const fault = await sandbox.fail({ status: 503, count: 1, match: { to: 'flaky@example.com' } })
    expect(fault.status).toBe(503)
    expect((await send('flaky@example.com', 'welcome')).status).toBe(503)
    await expect(sandbox.fail({ status: 418 as 503 })).rejects.toBeInstanceOf(TypeError)
    expect((await sandbox.rejections({ recipient: 'flaky@example.com' }))[0]).toMatchObject({
      code: 'simulated_fault',
    })
    expect(await sandbox.webhooks()).toEqual([])
  })

  it('close() ends the client only: a pending wait stops, the sandbox goes on', async () => {
    const client = connectSendbox(cli.url)
    const pending = client.waitForMessage({ recipient: 'never@example.com', timeout: 30_000 })
    await client.close()
    await expect(pending).rejects.toThrow()
    expect((await fetch(`${cli.url}/_sandbox/api/health`)).status).toBe(200)
  })

  it('a sandbox that does not answer is an error naming the URL and npx sendbox; SENDBOX_URL is the default', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => resolve(port))
      })
    })
    const url = `http://127.0.0.1:${port}`
    const previous = process.env.SENDBOX_URL
    process.env.SENDBOX_URL = url
    try {
      const client = connectSendbox()
      expect(client.url).toBe(url)
      const error = await client.messages().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SendboxUnreachableError)
      expect((error as Error).message).toContain(url)
      expect((error as Error).message).toContain('npx sendbox')
    } finally {
      if (previous === undefined) delete process.env.SENDBOX_URL
      else process.env.SENDBOX_URL = previous
    }
    expect(() => connectSendbox('not a url')).toThrow(TypeError)
  })
})
