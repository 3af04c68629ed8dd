import { startSendbox } from 'sendbox'
import { afterAll, expect, test } from 'vitest'

// One sandbox for this file: a free port, the project's templates, nothing kept on disk.
const sandbox = await startSendbox({ port: 0, memory: true, templates: './templates' })
afterAll(() => sandbox.close())

test('signing up sends a welcome email', async () => {
  // Start waiting first: after: 'now' counts only a message sent from here on.
  const welcome = sandbox.waitForMessage({ to: 'ada@example.com', after: 'now' })

  // Your application sends, configured with sandbox.url and sandbox.token; fetch stands in for it.
  await fetch(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { Authorization: `token ${sandbox.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'Ada <ada@example.com>',
      subject: 'Welcome to Acme',
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
    }),
  })

  const message = await welcome
  expect(message.subject).toBe('Welcome to Acme')
  expect(message.html).toContain('Welcome, Ada!')
})
