import { execFile } from 'node:child_process'
import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { childEnv, ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

/**
 * A project of a user's own for sendbox/vitest and sendbox/playwright (docs/testing.md#playwright-sendboxplaywright): sendbox and
 * the runner linked in, the templates, a tiny app that sends through the HTTP API
 * (runners/app.ts) and the suite. Used by test/recipes/runners.test.ts (Vitest, in `npm test`)
 * and test/browser/playwright-runner.test.ts (Playwright Test, which needs Chromium).
 */

const HERE = fileURLToPath(new URL('runners/', import.meta.url))

const dirs: string[] = []

/** Removes every project made so far (an afterAll of the suites that make them). */
export async function removeRunnerProjects(): Promise<void> {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
}

/** A project with sendbox and the runner's packages linked in. */
export async function runnerProject(
  suite: 'vitest' | 'playwright',
  packages: string[],
): Promise<string> {
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
function nestedEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...childEnv() }
  for (const key of Object.keys(env))
    if (key.startsWith('VITEST') || ['NODE_ENV', 'TEST', 'SENDBOX_URL'].includes(key))
      delete env[key]
  return { ...env, ...extra }
}

/** Runs `node ...args` in the project; its exit code and everything it printed. */
export function runInProject(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd, env: nestedEnv(env), timeout: 150_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          output: stdout + stderr,
        }),
    )
  })
}
