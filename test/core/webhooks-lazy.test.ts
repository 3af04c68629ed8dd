import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { modulesInBundle } from '../helpers/bundles.js'
import { childEnv, ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

const RECORDER = fileURLToPath(new URL('../startup/record-modules.mjs', import.meta.url))

/**
 * Whether a sandbox (the bundled library, in a child process) loaded undici, the webhook
 * client's HTTP library, after one send and its delivery: only a sandbox with a webhook should.
 */
async function loadsUndici(webhook: boolean): Promise<boolean> {
  const log = join(await tempDir(), 'modules.txt')
  const script = `
    import { createServer } from 'node:http'
    import { startSendbox } from 'sendbox'
    // Resolved when the receiver has the webhook: it went out (on undici, when that is loaded).
    let received
    const webhookReceived = new Promise((resolve) => (received = resolve))
    const receiver = createServer((req, res) => req.resume().on('end', () => { res.end('ok'); received() }))
    await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const sandbox = await startSendbox({
      port: 0, memory: true, templates: ${JSON.stringify(join(ROOT, 'templates'))},
      ${webhook ? "webhook: 'http://127.0.0.1:' + receiver.address().port + '/hooks'," : ''}
    })
    const response = await fetch(sandbox.url + '/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'token sandbox_lazy_0123456789' },
      body: JSON.stringify({ template: 'password-reset', from: 'a@acme.test', to: 'ada@example.com', subject: 'x',
        templateVariables: ${await readFile(join(ROOT, 'fixtures', 'password-reset.json'), 'utf8')} }),
    })
    if (response.status !== 201) throw new Error('send: ' + response.status + ' ' + (await response.text()))
    await sandbox.waitForMessage({ status: 'delivered' })
    ${webhook ? 'await webhookReceived' : ''}
    await sandbox.close()
    receiver.close()
  `
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      {
        cwd: ROOT,
        env: childEnv({ NODE_OPTIONS: `--import=${RECORDER}`, SENDBOX_MODULE_LOG: log }),
      },
      (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve()),
    ),
  )
  const files = (await readFile(log, 'utf8')).split('\n')
  const modules = [
    ...files,
    ...files
      .filter((url) => /\/dist\/sendbox[^/]*\.js$/.test(url))
      .flatMap((url) => modulesInBundle(fileURLToPath(url))),
  ]
  return modules.some((m) => m.includes('/node_modules/undici/'))
}

it('undici is loaded by a sandbox with a webhook, and never by one without', async () => {
  expect(await loadsUndici(true)).toBe(true)
  expect(await loadsUndici(false)).toBe(false)
})
