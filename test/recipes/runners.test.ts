import { execFile } from 'node:child_process'
import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { childEnv, ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

/**
 * sendbox/vitest and sendbox/playwright, for real (CONTRACT §9): a Vitest suite and a Playwright
 * Test suite (Debian's Chromium) in a project of their own, tests running side by side, each
 * with its own inbox, against a tiny app (runners/app.ts) that sends through the HTTP API.
 */

const HERE = fileURLToPath(new URL('runners/', import.meta.url))

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A project with sendbox and the runner linked in, the templates, the app and the suite. */
async function project(suite: 'vitest' | 'playwright', packages: string[]): Promise<string> {
  const dir = await tempDir(`sendbox-runner-${suite}-`)
  dirs.push(dir)
  await mkdir(join(dir, 'node_modules', '@playwright'), { recursive: true })
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  for (const name of packages)
    await symlink(join(ROOT, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  await cp(join(HERE, 'templates'), join(dir, 'templates'), { recursive: true })
  await cp(join(HERE, 'app.ts'), join(dir, 'app.ts'))
  await cp(join(HERE, suite), dir, { recursive: true })
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  )
  return dir
}

/** The environment of a nested run: none of this run's VITEST…, NODE_ENV, TEST or SENDBOX_URL. */
function nestedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...childEnv() }
  for (const key of Object.keys(env))
    if (key.startsWith('VITEST') || ['NODE_ENV', 'TEST', 'SENDBOX_URL'].includes(key))
      delete env[key]
  return env
}

function run(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, env: nestedEnv(), timeout: 150_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          output: stdout + stderr,
        }),
    )
  })
}

describe('test-runner fixtures', () => {
  it('sendbox/vitest: concurrent tests, each with its own inbox, click the link and type the code', async () => {
    const dir = await project('vitest', ['vitest'])
    const result = await run(
      [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose'],
      dir,
    )
    expect(result.output).toMatch(/4 passed/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)

  it('sendbox/playwright: parallel tests in Chromium, each with its own inbox', async () => {
    const dir = await project('playwright', ['@playwright/test', 'playwright', 'playwright-core'])
    const result = await run(
      [join('node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter', 'list'],
      dir,
    )
    expect(result.output).toMatch(/3 passed/)
    expect(result.code, result.output).toBe(0)
  }, 180_000)
})
