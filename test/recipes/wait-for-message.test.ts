import { startSendbox, type Sendbox } from 'sendbox'
import { afterAll, beforeAll, expect, test } from 'vitest'

let sandbox: Sendbox
beforeAll(async () => {
  sandbox = await startSendbox({ port: 0, memory: true, templates: './templates' })
})
afterAll(async () => {
  await sandbox.close()
})

// Stands in for your application's code.
async function requestPasswordReset(apiUrl: string, token: string, email: string) {
  await fetch(`${apiUrl}/messages`, {
    method: 'POST',
    headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      template: 'password-reset',
      from: 'Acme <hello@acme.test>',
      to: email,
      subject: 'Reset your password',
      templateVariables: { name: 'Ada', resetUrl: 'https://acme.test/reset?token=abc123' },
    }),
  })
}

test('a password reset email carries the reset link', async () => {
  // Start waiting first: after: 'now' takes only a message sent from here on, never an older one.
  const reset = sandbox.waitForMessage({
    to: 'ada@example.com',
    template: 'password-reset',
    after: 'now',
    timeout: 5000,
  })
  await requestPasswordReset(sandbox.url, sandbox.token, 'ada@example.com')

  const message = await reset
  expect(message.subject).toBe('Reset your password')
  expect(message.text).toContain('https://acme.test/reset?token=abc123')
})

test('no email to someone who did not ask', async () => {
  // Rejects with a WaitTimeoutError naming the filter.
  await expect(sandbox.waitForMessage({ to: 'bob@example.com', timeout: 200 })).rejects.toThrow(
    'bob@example.com',
  )
})
