import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCertificates } from '../../src/server/local-ca.js'
import { startCli, ROOT } from '../helpers/cli.js'
import { errorOf, startTestSandbox, tempDir, type TestSandbox } from '../helpers/sandbox.js'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js'

/**
 * STARTTLS against a server whose certificate no public CA signed (a local CA's, as a local
 * test server has): refused by default, trusted through NODE_EXTRA_CA_CERTS, or accepted with
 * `?tls=insecure`. And the CLI end to end: the relay in SENDBOX_RELAY, its password in no line of
 * the console, nodemailer loaded from the package's node_modules at the first release.
 */

const PASSWORD = 's3cret-in-the-url'
let smtp: TestSmtpServer
let caFile: string
const sandboxes: TestSandbox[] = []

beforeAll(async () => {
  const tls = await localCertificates(join(await tempDir(), 'tls'))
  caFile = tls.caFile
  smtp = await startSmtpServer({
    auth: { user: 'me', pass: PASSWORD },
    tls: { cert: tls.cert, key: tls.key },
  })
})
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()))
  await smtp?.close()
})

async function releaseThrough(relay: string): Promise<Response> {
  const sandbox = await startTestSandbox(
    { 'hi.liquid': '<p>Hi</p>' },
    { relay, relayAllow: ['me@example.com'], relayTimeout: 3000 },
  )
  sandboxes.push(sandbox)
  const sent = await sandbox.send({
    template: 'hi',
    from: 'a@acme.test',
    to: 'b@example.com',
    subject: 'Hi',
  })
  const { id } = (await sent.json()) as { id: string }
  return fetch(`${sandbox.url}/_sandbox/api/messages/${id}/release`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: ['me@example.com'] }),
  })
}

describe('STARTTLS', () => {
  it('a certificate that does not verify is refused by default: 502, nothing sent', async () => {
    const before = smtp.received.length
    const response = await releaseThrough(`smtp://me:${PASSWORD}@localhost:${smtp.port}`)
    expect(response.status).toBe(502)
    const error = await errorOf(response)
    expect(error.code).toBe('relay_failed')
    expect(error.message).toMatch(/certificate/i)
    expect(error.message).not.toContain(PASSWORD)
    expect(smtp.received.length).toBe(before)
  })

  it('?tls=insecure accepts it, and the message goes over TLS', async () => {
    const response = await releaseThrough(
      `smtp://me:${PASSWORD}@localhost:${smtp.port}?tls=insecure`,
    )
    expect(response.status).toBe(200)
    const received = await smtp.next()
    expect(received.secure).toBe(true)
    expect(received.user).toBe('me')
  })

  it('the CLI: SENDBOX_RELAY with NODE_EXTRA_CA_CERTS verifies the local CA; the banner and the console never show the password', async () => {
    const cli = await startCli(
      [
        '--port',
        '0',
        '--memory',
        '--templates',
        join(ROOT, 'templates'),
        '--relay-allow',
        'me@example.com',
      ],
      {
        env: {
          SENDBOX_RELAY: `smtp://me:${PASSWORD}@localhost:${smtp.port}`,
          NODE_EXTRA_CA_CERTS: caFile,
        },
      },
    )
    try {
      expect(cli.output().stdout).toContain(
        `Relay      smtp://localhost:${smtp.port}, releases to me@example.com`,
      )
      const sent = await fetch(`${cli.url}/messages`, {
        method: 'POST',
        headers: { authorization: 'token sandbox_cli', 'content-type': 'application/json' },
        body: JSON.stringify({
          template: 'welcome',
          from: 'Acme <hello@acme.test>',
          to: 'ada@example.com',
          subject: 'Welcome',
          templateVariables: {
            name: 'Ada',
            product: 'Acme Cloud',
            dashboardUrl: 'https://example.com/dashboard',
          },
        }),
      })
      expect(sent.status, await sent.clone().text()).toBe(201)
      const { id } = (await sent.json()) as { id: string }
      const response = await fetch(`${cli.url}/_sandbox/api/messages/${id}/release`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: ['me@example.com'] }),
      })
      expect(response.status, await response.clone().text()).toBe(200)
      const received = await smtp.next()
      expect(received.secure).toBe(true)
      expect(received.mail.headers.get('x-sendbox-message-id')).toBe(id)
    } finally {
      await cli.stop()
    }
    const { stdout, stderr } = cli.output()
    expect(stdout).toMatch(
      /Released msg_\w+ to me@example\.com through smtp:\/\/localhost:\d+: 250 /,
    )
    expect(stdout + stderr).not.toContain(PASSWORD)
  })
})
