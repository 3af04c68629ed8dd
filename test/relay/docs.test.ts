import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childEnv, ROOT, startCli } from '../helpers/cli.js'
import { fencedBlocks } from '../helpers/docs.js'
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js'

/**
 * The release's worked example, as the docs write it (docs/inspector.md, and its start line in
 * docs/inbox.md): `npx sendbox --relay smtp://localhost:1025 …` started as written (the SMTP
 * server's port put in for 1025), the curl block run against it, its answer compared with the
 * JSON block after it, and the message found in the SMTP server. test/readme-examples.test.ts
 * runs the curl block too, like every other.
 */

const START = 'npx sendbox --relay smtp://localhost:1025 --relay-allow me@example.com'
let smtp: TestSmtpServer
let inspector: string
let inbox: string

beforeAll(async () => {
  smtp = await startSmtpServer()
  inspector = await readFile(join(ROOT, 'docs/inspector.md'), 'utf8')
  inbox = await readFile(join(ROOT, 'docs/inbox.md'), 'utf8')
})
afterAll(() => smtp?.close())

const bash = (script: string) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      'bash',
      ['-euo', 'pipefail', '-c', script],
      { env: childEnv(), timeout: 30_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  )

/** "…" in a docs string stands for the rest of it. */
function like(example: unknown): unknown {
  if (typeof example === 'string' && example.includes('…'))
    return expect.stringMatching(
      new RegExp(`^${example.split('…')[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    )
  if (Array.isArray(example)) return example.map(like)
  if (example && typeof example === 'object')
    return Object.fromEntries(Object.entries(example).map(([k, v]) => [k, like(v)]))
  return example
}

describe('the release example of the docs', () => {
  it('both pages start sendbox with the same line', () => {
    const blocks = fencedBlocks(inspector, 'docs/inspector.md')
    expect(blocks.some((b) => b.lang === 'sh' && b.body === START)).toBe(true)
    expect(inbox).toContain(`\`${START}\``)
  })

  it('runs as written: started, released, answered as shown, and received by the SMTP server', async () => {
    const args = START.replace('npx sendbox ', '')
      .replace('localhost:1025', `localhost:${smtp.port}`)
      .split(' ')
    const cli = await startCli([
      ...args,
      '--port',
      '0',
      '--memory',
      '--templates',
      join(ROOT, 'templates'),
    ])
    try {
      const sent = await fetch(`${cli.url}/messages`, {
        method: 'POST',
        headers: {
          authorization: 'token sandbox_local_dev_token',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          template: 'welcome',
          from: 'Acme <hello@acme.test>',
          to: 'Ada Lovelace <ada@example.com>',
          subject: 'Welcome to Acme',
          templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
        }),
      })
      expect(sent.status).toBe(201)
      const blocks = fencedBlocks(inspector, 'docs/inspector.md')
      const curl = blocks.findIndex((b) => b.lang === 'sh' && b.body.includes('/release'))
      expect(curl).toBeGreaterThan(-1)
      const answer = JSON.parse(
        await bash(blocks[curl]!.body.replaceAll('http://127.0.0.1:5025', cli.url)),
      )
      expect(answer).toEqual(like(JSON.parse(blocks[curl + 1]!.body)))
      const received = await smtp.next()
      expect(received.to).toEqual(['me@example.com'])
      expect(received.mail.subject).toBe('Welcome to Acme')
    } finally {
      await cli.stop()
    }
  })
})
