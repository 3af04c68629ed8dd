import { execFile } from 'node:child_process'
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { childEnv, ROOT } from './helpers/cli.js'
import { tempDir } from './helpers/sandbox.js'

/**
 * `require('sendbox')` from a CommonJS script: Node ≥ 20.19 loads an ES module graph without
 * top-level await through require(), once the package's `exports` has a `require` condition.
 * (test/pack.test.ts does the same from the packed tarball.)
 */

let dir: string | undefined
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

it("require('sendbox') works from a CommonJS script, with no warning", async () => {
  dir = await tempDir('sendbox-cjs-')
  await mkdir(join(dir, 'node_modules'))
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'cjs-app', private: true, type: 'commonjs' }),
  )
  await writeFile(
    join(dir, 'smoke.js'),
    `const { startSendbox, WaitTimeoutError } = require('sendbox')
startSendbox({ port: 0, memory: true, templates: 'node_modules/sendbox/templates' }).then(async (sandbox) => {
  const response = await fetch(sandbox.url + '/messages', {
    method: 'POST',
    headers: { authorization: 'token ' + sandbox.token, 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'welcome', from: 'Acme <hello@acme.test>', to: 'ada@example.com', subject: 'Hi',
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' } }),
  })
  const message = await sandbox.waitForMessage({ to: 'ada@example.com' })
  await sandbox.close()
  console.log(response.status, message.subject, typeof WaitTimeoutError)
})
`,
  )
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['smoke.js'],
      { cwd: dir, env: childEnv(), timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        })
      },
    )
  })
  expect(result.stderr).toBe('')
  expect(result.stdout.trim()).toBe('201 Hi function')
  expect(result.code).toBe(0)
})
