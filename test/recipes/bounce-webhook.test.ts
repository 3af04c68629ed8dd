import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { startSendbox, type Sendbox, type WebhookEvent } from 'sendbox'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'

// The application under test: it sends email through the API, and its webhook endpoint
// verifies each event's signature and marks an address undeliverable after a hard bounce.
const undeliverable = new Set<string>()

function webhookEndpoint(secret: string): Server {
  const webhook = new Webhook(secret)
  return createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      let event: WebhookEvent
      try {
        event = webhook.verify(body, req.headers as Record<string, string>) as WebhookEvent
      } catch {
        res.writeHead(400).end('bad signature')
        return
      }
      if (event.type === 'message.bounced') undeliverable.add(event.data.recipient)
      res.writeHead(204).end()
    })
  })
}

async function sendWelcome(apiUrl: string, token: string, to: string): Promise<'sent' | 'skipped'> {
  if (undeliverable.has(to)) return 'skipped'
  const response = await fetch(`${apiUrl}/messages`, {
    method: 'POST',
    headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Welcome to Acme',
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
    }),
  })
  if (!response.ok) throw new Error(`sending failed: ${response.status}`)
  return 'sent'
}

// The application and sendbox share a signing secret, as in production.
const secret = `whsec_${randomBytes(24).toString('base64')}`
let app: Server
let sandbox: Sendbox

beforeAll(async () => {
  app = webhookEndpoint(secret)
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const { port } = app.address() as { port: number }
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: './templates',
    webhook: `http://127.0.0.1:${port}/webhooks/email`,
    webhookSecret: secret,
  })
})
afterAll(async () => {
  await sandbox?.close()
  await new Promise((resolve) => app?.close(resolve))
})

test('a hard bounce marks the address undeliverable, and the next email to it is not sent', async () => {
  // "+bounce" makes sendbox bounce this recipient and post a signed message.bounced.
  expect(await sendWelcome(sandbox.url, sandbox.token, 'ada+bounce@example.com')).toBe('sent')

  await vi.waitFor(() => expect(undeliverable).toContain('ada+bounce@example.com'), {
    timeout: 5000,
  })
  expect(await sendWelcome(sandbox.url, sandbox.token, 'ada+bounce@example.com')).toBe('skipped')
  // What the endpoint answered each delivery is in sendbox's webhook history, once the answer
  // is back (the endpoint acted on the event before it answered).
  await vi.waitFor(async () => {
    const [bounced] = await sandbox.webhooks({ type: 'message.bounced' })
    expect(bounced?.attempts.at(-1)?.statusCode).toBe(204)
  })
})

test('a delivered email leaves the address alone', async () => {
  await sendWelcome(sandbox.url, sandbox.token, 'grace@example.com')

  const message = await sandbox.waitForMessage({ to: 'grace@example.com', status: 'delivered' })
  // Once the endpoint has taken message.delivered, it has seen all there is about this email.
  await vi.waitFor(async () =>
    expect(
      await sandbox.webhooks({
        message: message.id,
        type: 'message.delivered',
        status: 'delivered',
      }),
    ).toHaveLength(1),
  )
  expect(undeliverable).not.toContain('grace@example.com')
})

test('a simulated bounce of a delivered email counts too', async () => {
  await sendWelcome(sandbox.url, sandbox.token, 'bob@example.com')
  const message = await sandbox.waitForMessage({ to: 'bob@example.com', status: 'delivered' })

  await sandbox.simulate(message.id, { type: 'bounced' })
  await vi.waitFor(() => expect(undeliverable).toContain('bob@example.com'), { timeout: 5000 })
})

test('an event with a wrong signature is refused', async () => {
  const forged = new Webhook(`whsec_${randomBytes(24).toString('base64')}`)
  const body = JSON.stringify({
    type: 'message.bounced',
    timestamp: new Date().toISOString(),
    data: { recipient: 'carol@example.com' },
  })
  const id = 'evt_forged'
  const now = new Date()
  const { port } = app.address() as { port: number }
  const response = await fetch(`http://127.0.0.1:${port}/webhooks/email`, {
    method: 'POST',
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': forged.sign(id, now, body),
    },
    body,
  })
  expect(response.status).toBe(400)
  expect(undeliverable).not.toContain('carol@example.com')
})
