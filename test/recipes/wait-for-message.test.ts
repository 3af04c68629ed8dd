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
  // An inbox of this test's own: a fresh address, and only the mail sent to it.
  const inbox = sandbox.inbox()
  await requestPasswordReset(sandbox.url, sandbox.token, inbox.address)

  // The link a reader would click, found by its text, as the record's `links` list it.
  const link = await inbox.waitForLink({ text: 'choose a new password', timeout: 5000 })
  expect(new URL(link).searchParams.get('token')).toBe('abc123')
})

test('no email to someone who did not ask', async () => {
  // Rejects with a WaitTimeoutError naming the filter.
  await expect(sandbox.waitForMessage({ to: 'bob@example.com', timeout: 200 })).rejects.toThrow(
    'bob@example.com',
  )
})
