import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, startCli, type RunningCli } from '../helpers/cli.js'
import { startReceiver, type Receiver } from '../helpers/receiver.js'

/** The §7 flags on the command line: --webhook, --webhook-secret, --webhook-retries, --delivery-delay. */

const running: RunningCli[] = []
const receivers: Receiver[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) await cli.stop()
  for (const receiver of receivers.splice(0)) await receiver.close()
})

const SECRET = `whsec_${Buffer.from('the command line test secret 1234').toString('base64')}`

async function sendFrom(url: string, to: string): Promise<string> {
  const response = await fetch(`${url}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_cli', 'content-type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'hello@acme.test',
      to,
      subject: 'Hi',
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' },
    }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

describe('the delivery flags', () => {
  it('--help lists them with their defaults and variables', async () => {
    const result = await runCli(['--help'])
    for (const text of [
      '--webhook',
      'SENDBOX_WEBHOOK',
      '--webhook-secret',
      'SENDBOX_WEBHOOK_SECRET',
      '--webhook-retries',
      'SENDBOX_WEBHOOK_RETRIES',
      '--delivery-delay',
      'SENDBOX_DELIVERY_DELAY',
    ])
      expect(result.stdout).toContain(text)
    expect(result.stdout).toMatch(/--webhook-retries[\s\S]*default: 5/)
    expect(result.stdout).toMatch(/--delivery-delay[\s\S]*default: 0/)
  })

  it.each([
    [['--webhook', 'ftp://example.com/x'], '--webhook'],
    [['--webhook', 'not a url'], '--webhook'],
    [['--webhook-secret', 'hunter2'], '--webhook-secret'],
    [['--webhook-secret', 'whsec_!!!'], '--webhook-secret'],
    [['--webhook-retries=-1'], '--webhook-retries'],
    [['--webhook-retries', '21'], '--webhook-retries'],
    [['--delivery-delay', 'soon'], '--delivery-delay'],
    [['--delivery-delay=-5'], '--delivery-delay'],
  ])('a bad value %j is one line naming %s, exit 2', async (args, flag) => {
    const result = await runCli(['--memory', '--port', '0', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(flag)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('without --webhook-secret a secret is generated and printed; webhooks from the variables are signed with it', async () => {
    const a = await startReceiver('/a')
    const b = await startReceiver('/b')
    receivers.push(a, b)
    const cli = await startCli(['--port', '0', '--memory'], {
      env: { SENDBOX_WEBHOOK: `${a.url},${b.url}` },
    })
    running.push(cli)
    const { stdout } = cli.output()
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(stdout)?.[1]
    expect(secret, stdout).toBeDefined()
    expect(stdout).toContain(a.url)
    expect(stdout).toContain(b.url)
    const id = await sendFrom(cli.url, 'ada@example.com')
    for (const receiver of [a, b]) {
      const [first] = await receiver.until(() => receiver.typesFor(id).length === 2)
      expect(() =>
        new Webhook(secret!).verify(first!.raw, first!.headers as Record<string, string>),
      ).not.toThrow()
    }
  })

  it('--webhook-secret is used and not printed; --webhook repeats; --delivery-delay spaces the steps', async () => {
    const a = await startReceiver('/a')
    const b = await startReceiver('/b')
    receivers.push(a, b)
    const cli = await startCli([
      '--port',
      '0',
      '--memory',
      '--webhook',
      a.url,
      '--webhook',
      b.url,
      '--webhook-secret',
      SECRET,
      '--delivery-delay',
      '120',
    ])
    running.push(cli)
    expect(cli.output().stdout).not.toContain(SECRET)
    expect(cli.output().stdout).toContain('120 ms')
    const id = await sendFrom(cli.url, 'x+softbounce@example.com')
    for (const receiver of [a, b]) {
      const requests = await receiver.until(() => receiver.typesFor(id).length === 3)
      expect(requests.map((r) => r.body.type)).toEqual([
        'message.sent',
        'message.deferred',
        'message.delivered',
      ])
      for (const request of requests)
        new Webhook(SECRET).verify(request.raw, request.headers as Record<string, string>)
      // The steps' own times, which the server stamps as each happens: when a receiver read them
      // also counts how long each waited in a loaded machine's queue (a CI run saw 90 ms).
      const at = requests.map((r) => Date.parse((r.body as { timestamp: string }).timestamp))
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(100)
    }
  })

  it('--webhook-retries 0: one attempt, then failed', async () => {
    const a = await startReceiver()
    receivers.push(a)
    a.respond = () => 500
    const cli = await startCli([
      '--port',
      '0',
      '--memory',
      '--webhook',
      a.url,
      '--webhook-retries',
      '0',
    ])
    running.push(cli)
    const id = await sendFrom(cli.url, 'ada@example.com')
    await a.until(() => a.typesFor(id).length === 2)
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${cli.url}/_sandbox/api/webhooks?status=failed`)).json()) as {
              total: number
            }
          ).total,
      )
      .toBe(2)
    expect(a.typesFor(id)).toEqual(['message.sent', 'message.delivered'])
  })
})
