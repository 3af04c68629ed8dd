import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { childEnv, ROOT, runCli, startCli } from './helpers/cli.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'

/**
 * A project's first minutes: `sendbox init` writes a starter that `sendbox check` passes and
 * never overwrites; without a templates folder, `serve` and `startSendbox` start (with 0
 * templates) and say what to do, and pick the folder up when it appears.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})
async function project(): Promise<string> {
  const dir = await tempDir('sendbox-init-')
  dirs.push(dir)
  return dir
}

const STARTER = [
  'templates/layouts/base.liquid',
  'templates/partials/button.liquid',
  'templates/hello.liquid',
  'fixtures/hello.json',
]

describe('sendbox init', () => {
  it('creates templates/ and fixtures/ with a starter that sendbox check passes', async () => {
    const dir = await project()
    const result = await runCli(['init'], { cwd: dir })
    expect(result.code, result.stderr).toBe(0)
    for (const file of STARTER) {
      expect(result.stdout).toContain(`created  ${file}`)
      expect((await readFile(join(dir, file), 'utf8')).length).toBeGreaterThan(10)
    }
    const check = await runCli(['check'], { cwd: dir })
    expect(check.stdout, check.stdout).toBe('')
    expect(check.stderr).toContain('no problems')
    expect(check.code).toBe(0)
    const render = await runCli(['render', 'hello', '--text'], { cwd: dir })
    expect(render.stdout).toContain('Hello, Ada!')
  })

  it('never overwrites a file that exists, and says which it kept', async () => {
    const dir = await project()
    await writeFiles(dir, {
      'templates/hello.liquid': 'mine {{ x }}',
      'fixtures/hello.json': '{"x":1}',
    })
    const result = await runCli(['init'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('kept     templates/hello.liquid')
    expect(result.stdout).toContain('kept     fixtures/hello.json')
    expect(result.stdout).toContain('created  templates/layouts/base.liquid')
    expect(await readFile(join(dir, 'templates/hello.liquid'), 'utf8')).toBe('mine {{ x }}')
    expect(await readFile(join(dir, 'fixtures/hello.json'), 'utf8')).toBe('{"x":1}')
    const again = await runCli(['init'], { cwd: dir })
    expect(again.stdout).not.toContain('created')
    expect(again.stdout).toContain('Nothing to do')
  })

  it('--templates and --fixtures choose the folders', async () => {
    const dir = await project()
    const result = await runCli(
      ['init', '--templates', 'mail/views', '--fixtures', 'mail/samples'],
      { cwd: dir },
    )
    expect(result.code, result.stderr).toBe(0)
    expect(await readFile(join(dir, 'mail/views/hello.liquid'), 'utf8')).toContain(
      'Hello, {{ name }}!',
    )
    expect(JSON.parse(await readFile(join(dir, 'mail/samples/hello.json'), 'utf8'))).toMatchObject({
      name: 'Ada',
    })
  })
})

describe('no templates folder', () => {
  it('serve starts with 0 templates, warns naming sendbox init, and picks the folder up once it appears', async () => {
    const dir = await project()
    const sendbox = await startCli(['--port', '0', '--memory'], { cwd: dir })
    try {
      const health = async () =>
        (
          (await (await fetch(`${sendbox.url}/_sandbox/api/health`)).json()) as {
            templates: number
          }
        ).templates
      expect(await health()).toBe(0)
      const { stderr } = sendbox.output()
      expect(stderr).toMatch(/templates folder templates does not exist/)
      expect(stderr).toContain('npx sendbox init')
      expect((await runCli(['init'], { cwd: dir })).code).toBe(0)
      await expect.poll(health, { timeout: 10_000 }).toBe(1)
    } finally {
      await sendbox.stop()
    }
  })

  it('an empty templates folder is a warning in serve too', async () => {
    const dir = await project()
    await writeFiles(dir, { 'templates/.keep': '' })
    const sendbox = await startCli(['--port', '0', '--memory'], { cwd: dir })
    await sendbox.stop()
    expect(sendbox.output().stderr).toMatch(
      /templates folder templates has no templates yet.*npx sendbox init/,
    )
  })

  it('startSendbox does not throw: it starts with 0 templates and warns through its logger', async () => {
    const dir = await project()
    const index = pathToFileURL(join(ROOT, 'dist', 'index.js')).href
    await writeFile(
      join(dir, 'start.mjs'),
      `import { startSendbox } from ${JSON.stringify(index)}
const sandbox = await startSendbox({ port: 0, memory: true, templates: './templates' })
const health = await (await fetch(sandbox.url + '/_sandbox/api/health')).json()
await sandbox.close()
console.log('templates', health.templates)
`,
    )
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          ['start.mjs'],
          { cwd: dir, env: childEnv(), timeout: 20_000 },
          (error, stdout, stderr) => {
            resolve({ code: error ? 1 : 0, stdout, stderr })
          },
        )
      },
    )
    expect(result.stderr).toMatch(/templates folder templates does not exist.*npx sendbox init/)
    expect(result.stdout.trim()).toBe('templates 0')
    expect(result.code).toBe(0)
  })
})
