import { execFile } from 'node:child_process'
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { childEnv, projectWithSendbox, ROOT } from '../helpers/cli.js'
import { ciSection, RECIPE_FILES, readDocs } from '../helpers/docs.js'
import { tempDir } from '../helpers/sandbox.js'

/**
 * The "In CI" recipes of the docs (the <!-- ci:start --> sections of README.md and docs/*.md) are
 * these files, pasted verbatim; this runs them as a user would.
 * (retry.test.ts, wait-for-message.test.ts and bounce-webhook.test.ts are recipes and ordinary tests at once; python.test.ts
 * runs the Python one.)
 */

const HERE = fileURLToPath(new URL('.', import.meta.url))

/** A project using the Vitest recipe: sendbox and vitest linked in, the example templates, the recipe's files. */
async function vitestRecipeProject(dir: string): Promise<void> {
  await mkdir(join(dir, 'node_modules'))
  await symlink(ROOT, join(dir, 'node_modules', 'sendbox'), 'dir')
  await symlink(join(ROOT, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'dir')
  await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
  await cp(join(HERE, 'vitest'), dir, { recursive: true })
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  )
}

/** The environment for a nested vitest run: none of this run's own VITEST…, NODE_ENV or TEST settings. */
function outsideVitest(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const key of Object.keys(process.env))
    if (key.startsWith('VITEST') || key === 'NODE_ENV' || key === 'TEST') env[key] = undefined
  return env
}

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  timeout = 60_000,
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...childEnv(), ...env }, timeout },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        })
      },
    )
  })
}

const dirs: string[] = []
/** Where the shell recipes run: a project with sendbox installed and the example templates. */
const project = await projectWithSendbox(await tempDir('sendbox-shell-'), { templates: true })
dirs.push(project)
// npx may only run the sendbox installed in the project, never fetch one.
const NPX_ENV = { npm_config_offline: 'true', npm_config_yes: 'false' }
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('the recipes of the docs', () => {
  it('the "In CI" sections of the README and docs/*.md show every recipe file verbatim', async () => {
    const ci = (await readDocs()).map(({ text }) => ciSection(text)).join('\n')
    expect(ci.length).toBeGreaterThan(100)
    for (const file of RECIPE_FILES) {
      const text = (await readFile(join(HERE, file), 'utf8')).trimEnd()
      expect(
        ci.includes(text),
        `no "In CI" section (<!-- ci:start --> … <!-- ci:end -->) of README.md or docs/*.md contains ${file} verbatim`,
      ).toBe(true)
    }
  })

  it('vitest globalSetup: a project using the setup, provide/inject and the environment passes', async () => {
    const dir = await tempDir('sendbox-recipe-vitest-')
    dirs.push(dir)
    await vitestRecipeProject(dir)
    const env = outsideVitest()
    const result = await run(
      process.execPath,
      [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter', 'verbose'],
      dir,
      env,
      90_000,
    )
    expect(result.stdout + result.stderr).toMatch(/2 passed/)
    expect(result.code, result.stdout + result.stderr).toBe(0)
  }, 120_000)

  it('vitest globalSetup and waitForMessage: a test whose app sends nothing fails, though an earlier test sent the same mail', async () => {
    const dir = await tempDir('sendbox-recipe-stale-')
    dirs.push(dir)
    await vitestRecipeProject(dir)
    // Each recipe's first test, run again after it with the application's send left out: the
    // mail of the first run is still in the sandbox, and must not make the copy pass.
    const staleCopy = (source: string, title: string, send: RegExp) => {
      const start = source.indexOf(`test('${title}'`)
      const block = source.slice(start, source.indexOf('\n})\n', start) + 4)
      expect(block).toMatch(send)
      return `${source}\n${block
        .replace(`test('${title}'`, `test('STALE ${title}'`)
        .replace(send, '// (the application forgot to send)')
        .replace(/timeout(=|: )5000/g, 'timeout$11000')}`
    }
    const signup = await readFile(join(HERE, 'vitest', 'signup.spec.ts'), 'utf8')
    await writeFile(
      join(dir, 'signup.spec.ts'),
      staleCopy(
        signup,
        'signing up sends a welcome email',
        /await sendWelcomeEmail\('Ada', 'ada@example\.com'\)/,
      ),
    )
    const reset = await readFile(join(HERE, 'wait-for-message.test.ts'), 'utf8')
    await writeFile(
      join(dir, 'reset.spec.ts'),
      staleCopy(
        reset,
        'a password reset email carries the reset link',
        /await requestPasswordReset\(sandbox\.url, sandbox\.token, inbox\.address\)/,
      ),
    )
    const env = outsideVitest()
    const result = await run(
      process.execPath,
      [
        join('node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--reporter',
        'json',
        '--outputFile',
        'results.json',
        '--sequence.concurrent=false',
      ],
      dir,
      env,
      90_000,
    )
    const report = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as {
      testResults: Array<{ assertionResults: Array<{ title: string; status: string }> }>
    }
    const outcomes = Object.fromEntries(
      report.testResults.flatMap((file) => file.assertionResults.map((t) => [t.title, t.status])),
    )
    expect(outcomes, result.stdout + result.stderr).toEqual({
      'signing up sends a welcome email': 'passed',
      'the token from the setup is accepted': 'passed',
      'STALE signing up sends a welcome email': 'failed',
      'a password reset email carries the reset link': 'passed',
      'no email to someone who did not ask': 'passed',
      'STALE a password reset email carries the reset link': 'failed',
    })
  }, 120_000)

  it('shell: with-sendbox.sh starts sendbox, runs the command with SENDBOX_URL/SENDBOX_TOKEN, stops it', async () => {
    const result = await run(
      'bash',
      [
        join(HERE, 'with-sendbox.sh'),
        'bash',
        '-c',
        'echo "$SENDBOX_URL $SENDBOX_TOKEN"; curl -sf "$SENDBOX_URL/_sandbox/api/health"',
      ],
      project,
      NPX_ENV,
    )
    expect(result.code, result.stderr).toBe(0)
    const [url, token] = result.stdout.split('\n')[0]!.split(' ')
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(token).toBe('sandbox_ci')
    expect(result.stdout).toContain('"status":"ok"')
    // Stopped at the end: nothing answers any more.
    await expect(fetch(`${url}/_sandbox/api/health`)).rejects.toThrow()
  }, 60_000)

  it("shell: the exit status is the command's", async () => {
    const result = await run(
      'bash',
      [join(HERE, 'with-sendbox.sh'), 'bash', '-c', 'exit 7'],
      project,
      NPX_ENV,
    )
    expect(result.code).toBe(7)
  }, 60_000)

  it('curl: assert-with-curl.sh passes when the message came, fails when it did not', async () => {
    const ok = await run(
      'bash',
      [join(HERE, 'with-sendbox.sh'), join(HERE, 'assert-with-curl.sh')],
      project,
      NPX_ENV,
    )
    expect(ok.code, ok.stderr).toBe(0)
    // The same wait for a message nobody sent: curl -f turns the 404 wait_timeout into a failure.
    const missing = await run(
      'bash',
      [
        join(HERE, 'with-sendbox.sh'),
        'bash',
        '-c',
        'curl -sf "$SENDBOX_URL/_sandbox/api/messages/wait?to=ada@example.com&timeout=300"',
      ],
      project,
      NPX_ENV,
    )
    expect(missing.code).toBe(22)
  }, 60_000)
})
