import { startSendbox, type Sendbox } from 'sendbox'
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest'

// The application code under test: a client that retries 429 and 5xx answers.
async function sendEmail(apiUrl: string, token: string, message: object, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${apiUrl}/messages`, {
      method: 'POST',
      headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(message),
    })
    if (response.ok) return { attempt, sent: await response.json() }
    const retryable = response.status === 429 || response.status >= 500
    if (!retryable || attempt === attempts)
      throw new Error(`sending failed with ${response.status}`)
    const seconds = Number(response.headers.get('Retry-After') ?? 0)
    // The backoff is the recipe itself (Retry-After, else a growing pause): a wait, not an event.
    await new Promise((resolve) => setTimeout(resolve, seconds > 0 ? seconds * 1000 : 20 * attempt))
  }
}

const welcome = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'Ada <ada@example.com>',
  subject: 'Welcome to Acme',
  templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
}

let sandbox: Sendbox
beforeAll(async () => {
  sandbox = await startSendbox({ port: 0, memory: true, templates: './templates' })
})
beforeEach(async () => {
  await sandbox.clear()
})
afterAll(async () => {
  await sandbox.close()
})

test('two 503s are retried: the third attempt goes through', async () => {
  await sandbox.fail({ status: 503, count: 2 })

  const result = await sendEmail(sandbox.url, sandbox.token, welcome)

  expect(result.attempt).toBe(3)
  expect(await sandbox.messages({ to: 'ada@example.com' })).toHaveLength(1)
})

test('it gives up after three 503s', async () => {
  await sandbox.fail({ status: 503, count: 3 })

  await expect(sendEmail(sandbox.url, sandbox.token, welcome)).rejects.toThrow('503')
  expect(await sandbox.messages()).toHaveLength(0)
})
