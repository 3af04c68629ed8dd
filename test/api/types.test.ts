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
import { startSendbox, WaitTimeoutError, type MessageRecord, type Sendbox, type SendboxOptions } from 'sendbox'

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
await sandbox.close()
const isTimeout = (e: unknown) => e instanceof WaitTimeoutError
// @ts-expect-error: a port is a number
await startSendbox({ port: '5025' })
// @ts-expect-error: only fault statuses
await sandbox.fail({ status: 404 })
// @ts-expect-error: no such option
await startSendbox({ prot: 1 })
export { url, token, subject, address, all, isTimeout }
`

it('types ship: dist/index.d.ts type-checks a consumer importing sendbox (and catches misuse)', async () => {
  expect(existsSync(join(ROOT, 'dist', 'index.d.ts'))).toBe(true)
  dir = await tempDir('sendbox-types-')
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }))
  await writeFile(join(dir, 'consumer.ts'), consumer)
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types'), 'consumer.ts']
  const result = await run(process.execPath, [tsc, ...args], { cwd: dir }).then(
    () => ({ code: 0, out: '' }),
    (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
  )
  expect(result.out).toBe('')
  expect(result.code).toBe(0)
}, 60_000)
