import type { MessageRecord } from 'sendbox'
import { expect, inject, test } from 'vitest'

const { url, token } = inject('sendbox')

// Stands in for your application's code, configured from the environment.
async function sendWelcomeEmail(name: string, to: string) {
  const response = await fetch(`${process.env.MAIL_API_URL}/messages`, {
    method: 'POST',
    headers: {
      Authorization: `token ${process.env.MAIL_API_TOKEN}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: `${name} <${to}>`,
      subject: 'Welcome to Acme',
      templateVariables: { name, dashboardUrl: 'https://acme.test/dashboard' },
    }),
  })
  if (!response.ok) throw new Error(`sending failed: ${response.status}`)
}

test('signing up sends a welcome email', async () => {
  // The sandbox is shared by the whole run: only mail sent from now on may count.
  const since = new Date().toISOString()
  await sendWelcomeEmail('Ada', 'ada@example.com')

  // Wait for it (at most 5 s): 200 with the message, or 404 wait_timeout.
  const response = await fetch(
    `${url}/_sandbox/api/messages/wait?to=ada@example.com&since=${since}&timeout=5000`,
  )
  expect(response.status).toBe(200)
  const message = (await response.json()) as MessageRecord
  expect(message.subject).toBe('Welcome to Acme')
  expect(message.html).toContain('Welcome, Ada!')
})

test('the token from the setup is accepted', async () => {
  const response = await fetch(`${url}/templates/welcome`, {
    headers: { Authorization: `token ${token}` },
  })
  expect(response.status).toBe(200)
})
