import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

const run = promisify(execFile)
let dir: string | undefined
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined))

/** A consumer project, type-checked the way a user's would be: `sendbox` from node_modules. */
const consumer = `
import { startSendbox, WaitTimeoutError, type MessageRecord, type MessageStatus, type Sendbox, type SendboxOptions, type Suppression, type WebhookDelivery, type WebhookEvent } from 'sendbox'

const options: SendboxOptions = { port: 0, templates: './templates', memory: true, open: false, lenient: true, token: ['sandbox_a'], maxBody: '2mb' }
const sandbox: Sendbox = await startSendbox(options)
const url: string = sandbox.url
const token: string = sandbox.token
const record: MessageRecord = await sandbox.waitForMessage({ to: 'ada@example.com', timeout: 5000 })
const subject: string = record.subject
const address: string = record.to[0]!.address
const all: MessageRecord[] = await sandbox.messages({ template: 'welcome' })
await sandbox.fail({ status: 503, count: 2, match: { template: 'welcome' } })
await sandbox.clear()
const secret: string = sandbox.webhookSecret
const simulated: MessageRecord = await sandbox.simulate(record.id, { type: 'clicked', url: 'https://acme.test' })
const status: MessageStatus = simulated.status
const [delivery]: WebhookDelivery[] = await sandbox.webhooks({ type: 'message.bounced' })
const suppressed: Suppression[] = await sandbox.suppressions({ project: record.project })
await sandbox.unsuppress({ address: 'ada@example.com' })
const bounced: MessageRecord = await sandbox.waitForMessage({ status: 'bounced' })
function onWebhook(event: WebhookEvent): string {
  if (event.type === 'message.bounced') return event.data.bounce.type
  if (event.type === 'message.clicked') return event.data.url
  return event.data.recipient
}
await startSendbox({ webhook: ['http://127.0.0.1:4000/hooks'], webhookSecret: 'whsec_AAAA', deliveryDelay: 100, webhookRetries: 2 })
await sandbox.close()
const isTimeout = (e: unknown) => e instanceof WaitTimeoutError
// @ts-expect-error: a port is a number
await startSendbox({ port: '5025' })
// @ts-expect-error: only fault statuses
await sandbox.fail({ status: 404 })
// @ts-expect-error: no such option
await startSendbox({ prot: 1 })
// @ts-expect-error: not an event sendbox simulates
await sandbox.simulate('msg_x', { type: 'read' })
// @ts-expect-error: not a status
await sandbox.waitForMessage({ status: 'lost' })
export { url, token, subject, address, all, isTimeout, secret, status, delivery, suppressed, bounced, onWebhook }
`

it('types ship: dist/index.d.ts type-checks a consumer importing sendbox (and catches misuse)', async () => {
  expect(existsSync(join(ROOT, 'dist', 'index.d.ts'))).toBe(true)
  dir = await tempDir('sendbox-types-')
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  )
  await writeFile(join(dir, 'consumer.ts'), consumer)
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const args = [
    '--noEmit',
    '--strict',
    '--target',
    'es2022',
    '--module',
    'nodenext',
    '--moduleResolution',
    'nodenext',
    '--skipLibCheck',
    '--types',
    'node',
    '--typeRoots',
    join(ROOT, 'node_modules', '@types'),
    'consumer.ts',
  ]
  const result = await run(process.execPath, [tsc, ...args], { cwd: dir }).then(
    () => ({ code: 0, out: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
  )
  expect(result.out).toBe('')
  expect(result.code).toBe(0)
}, 60_000)
