import { execFile, execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/**
 * The Python recipe of docs/testing.md (python/read_mail.py, shown there verbatim), run by
 * Python against a real sandbox: it waits with `recipient=` (exact, where a substring neighbour
 * also has mail) and follows the record's link by its text, to a page an app serves.
 */

const RECIPE = join(ROOT, 'test', 'recipes', 'python', 'read_mail.py')

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const python = hasPython()

// What a test in Python does with the recipe's two functions; prints the page it reached.
const DRIVER = `
import sys
sys.path.insert(0, sys.argv[1])
from read_mail import follow_link, wait_for_message
url, recipient, text, timeout = sys.argv[2:6]
print(follow_link(wait_for_message(url, recipient, int(timeout)), text))
`

function runRecipe(
  sandbox: string,
  recipient: string,
  text: string,
  timeout = 10_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ['-c', DRIVER, join(RECIPE, '..'), sandbox, recipient, text, String(timeout)]
  return new Promise((resolve) => {
    execFile('python3', args, { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe('docs/testing.md', () => {
  it('shows the Python recipe verbatim', async () => {
    const doc = await readFile(join(ROOT, 'docs', 'testing.md'), 'utf8')
    const recipe = (await readFile(RECIPE, 'utf8')).trimEnd()
    expect(doc.includes(recipe), 'docs/testing.md does not show python/read_mail.py').toBe(true)
  })
})

describe.skipIf(!python)('Python: wait by recipient, follow the link', { timeout: 60_000 }, () => {
  let sandbox: TestSandbox
  let app: Server
  let appUrl = ''
  beforeAll(async () => {
    // The app's reset page: it names the token it was reached with.
    app = createServer((request, response) => {
      const token = new URL(request.url!, 'http://app').searchParams.get('token')
      response.end(`<h1>Choose a new password</h1><p>token ${token}</p>`)
    })
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
    sandbox = await startTestSandbox({
      'password-reset.liquid':
        '<p><a href="https://acme.test/help">Help</a></p><p><a href="{{ url }}">Choose a new password</a></p>',
    })
  })
  afterAll(async () => {
    await sandbox?.close()
    await new Promise((resolve) => app?.close(resolve))
  })
  beforeEach(() => sandbox.clear())

  async function sendReset(to: string, token: string): Promise<void> {
    const response = await sandbox.send({
      template: 'password-reset',
      from: 'security@acme.test',
      to,
      subject: 'Reset your password',
      templateVariables: { url: `${appUrl}/reset?token=${token}` },
    })
    expect(response.status).toBe(201)
  }

  it("follows the link of the recipient's own message, not its substring neighbour's", async () => {
    await sendReset('ada@example.com', 'ada-s')
    // Newer, and `to=ada@example.com` would match it too.
    await sendReset('lovelace-ada@example.com', 'neighbour-s')
    const result = await runRecipe(sandbox.url, 'ADA@example.com', 'new password')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('<h1>Choose a new password</h1><p>token ada-s</p>')
  })

  it('waits for a message that has not arrived yet', async () => {
    const running = runRecipe(sandbox.url, 'grace@example.com', 'NEW PASSWORD')
    // Whether the wait has begun or not, the recipe gets it: /wait also answers with a match already there.
    await sendReset('grace@example.com', 'grace-s')
    const result = await running
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('token grace-s')
  })

  it('fails with 404 wait_timeout when nothing arrives in time', async () => {
    await sendReset('lovelace-ada@example.com', 'neighbour-s')
    const result = await runRecipe(sandbox.url, 'ada@example.com', 'new password', 300)
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/HTTPError: HTTP Error 404/)
  })

  it('names the links it has when none matches', async () => {
    await sendReset('ada@example.com', 'ada-s')
    const result = await runRecipe(sandbox.url, 'ada@example.com', 'unsubscribe')
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain(
      "LookupError: no link matches 'unsubscribe': ['Help', 'Choose a new password']",
    )
  })
})
