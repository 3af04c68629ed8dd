import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningCli, runCli, startCli } from './helpers/cli.js'
import { startTestSandbox, type TestSandbox, tempDir, writeFiles } from './helpers/sandbox.js'
import { openEventStream } from './helpers/sse.js'

/**
 * What a new user reads in their first hour: the console on a template change, one form for a
 * place in a file (the inbox page and `sendbox check` alike), sizes and types in plain words,
 * and a missing templates folder said where it stays on screen.
 */

const WELCOME = '<p>Welcome, {{ name }}!</p>\n'
/**
 * chokidar drops a second `change` of one file within 50 ms of the previous one (its change
 * throttle, with no trailing event): a save that soon after a reload would go unseen. Writing
 * the same file twice, a test lets that window pass first; this is not a wait for the event.
 */
const pastChangeThrottle = () => new Promise((resolve) => setTimeout(resolve, 80))
const BROKEN = '<p>Welcome</p>\n{% if name %}never closed\n'

/** Resolves once the CLI's output (stdout and stderr) matches. */
function outputOf(cli: RunningCli, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const { stdout, stderr } = cli.output()
      const match = pattern.exec(stdout + stderr)
      if (!match) return
      cli.child.stdout!.off('data', later)
      cli.child.stderr!.off('data', later)
      resolve(match[0])
    }
    // After the CLI helper's own listeners, so the output includes the chunk.
    const later = () => setImmediate(check)
    cli.child.stdout!.on('data', later)
    cli.child.stderr!.on('data', later)
    void cli.exited.then(() => reject(new Error(`sendbox exited\n${cli.output().stdout}`)))
    check()
  })
}

describe('sendbox serve: the console and the page name a place as check does', () => {
  let dir: string
  let cli: RunningCli
  beforeAll(async () => {
    dir = await tempDir('sendbox-console-')
    await writeFiles(join(dir, 'templates'), { 'welcome.liquid': WELCOME })
    await mkdir(join(dir, 'fixtures'))
    cli = await startCli(['serve', '--templates', 'templates', '--memory', '--port', '0'], {
      cwd: dir,
    })
  })
  afterAll(() => cli?.stop())

  it('one console line when a template stops parsing, one when it reloads', async () => {
    await writeFile(join(dir, 'templates', 'welcome.liquid'), BROKEN)
    expect(await outputOf(cli, /Template welcome does not parse: .*/)).toBe(
      'Template welcome does not parse: templates/welcome.liquid:2:1  Tag {% if name %} is not closed (missing {% endif %}).',
    )
    await pastChangeThrottle()
    await writeFile(join(dir, 'templates', 'welcome.liquid'), WELCOME)
    expect(await outputOf(cli, /Template welcome reloaded .*/)).toBe(
      'Template welcome reloaded (templates/welcome.liquid)',
    )
    await writeFile(join(dir, 'templates', 'second.liquid'), WELCOME)
    expect(await outputOf(cli, /Template second added .*/)).toBe(
      'Template second added (templates/second.liquid)',
    )
  })

  it('a fixture that stops parsing: its folder and line:column, and a reload that says what it left out', async () => {
    await writeFile(join(dir, 'fixtures', 'second.json'), '{\n  "name": }\n')
    expect(await outputOf(cli, /fixtures\/second\.json:\d+:\d+ .*/)).toBe(
      "fixtures/second.json:2:11  Invalid JSON at line 2 column 11: Unexpected token '}'.",
    )
    expect(await outputOf(cli, /Template second reloaded.*/)).toBe(
      'Template second reloaded without its fixture case "default": fixtures/second.json does not parse',
    )
  })

  it('the inbox page is told the place as `sendbox check` prints it', async () => {
    await writeFile(join(dir, 'templates', 'broken.liquid'), BROKEN)
    await outputOf(cli, /Template broken does not parse/)
    const response = await fetch(`${cli.url}/_sandbox/api/previews?soft=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ template: 'broken', variables: { name: 'Ada' } }),
    })
    const answer = (await response.json()) as {
      ok: false
      error: { details: Array<{ path: string; line: number; column: number }> }
    }
    const [place] = answer.error.details
    expect(place).toMatchObject({ path: 'templates/broken.liquid', line: 2, column: 1 })
    const check = await runCli(['check', '--templates', 'templates', '--no-email-checks'], {
      cwd: dir,
    })
    expect(check.stdout).toContain(
      `${place!.path}:${place!.line}:${place!.column}  template_invalid`,
    )
  })
})

describe('with logs off (the programmatic API, tests), template changes print nothing', () => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox({ 'welcome.liquid': WELCOME })
  })
  afterAll(() => sandbox?.close())
  afterEach(() => vi.restoreAllMocks())

  it('a reload and a failure write nothing to stdout or stderr', async () => {
    const written: string[] = []
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk))
        return true
      })
    const stream = await openEventStream(sandbox.url)
    try {
      await writeFile(join(sandbox.templatesDir, 'welcome.liquid'), BROKEN)
      await stream.until((events) => events.some((e) => e.event === 'template'))
      const broken = await sandbox.api('/_sandbox/api/templates')
      expect(JSON.stringify(await broken.json())).toContain('not closed')
      await pastChangeThrottle()
      await writeFile(join(sandbox.templatesDir, 'welcome.liquid'), WELCOME)
      await stream.until((events) => events.filter((e) => e.event === 'template').length >= 2)
    } finally {
      stream.close()
    }
    expect(written.filter((line) => line.includes('Template'))).toEqual([])
  })
})

describe('sizes and types in plain words', () => {
  let sandbox: TestSandbox
  beforeAll(async () => {
    sandbox = await startTestSandbox({ 'welcome.liquid': WELCOME })
  })
  afterAll(() => sandbox?.close())

  it('a value of the wrong type is "an object", not "a object"', async () => {
    const response = await sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: {},
      subject: {},
    })
    expect(response.status).toBe(422)
    const text = JSON.stringify(await response.json())
    expect(text).toContain('to must be a string or an array of strings, not an object.')
    expect(text).toContain('subject must be a string, not an object.')
    const fault = await sandbox.api('/_sandbox/api/faults', {
      method: 'POST',
      json: { status: 503, count: {} },
    })
    expect(JSON.stringify(await fault.json())).toContain(
      'count must be a whole number, not an object.',
    )
  })

  it('a 413 names the limit in MiB', async () => {
    const response = await sandbox.send({ template: 'welcome', padding: 'x'.repeat(1024 * 1024) })
    expect(response.status).toBe(413)
    const body = (await response.json()) as { error: { message: string } }
    expect(body.error.message).toBe(
      'The body is larger than the 1 MiB limit; send less, or raise it with --max-body.',
    )
  })
})

describe('a --templates folder that does not exist', () => {
  it('is said in the banner, on the Templates line', async () => {
    const dir = await tempDir('sendbox-missing-')
    const cli = await startCli(['serve', '--templates', 'nope', '--memory', '--port', '0'], {
      cwd: dir,
    })
    try {
      const line = /^ {2}Templates {2}.*$/m.exec(cli.output().stdout)?.[0]
      expect(line).toContain(join(dir, 'nope'))
      expect(line).toContain('does not exist')
      expect(line).toContain('npx sendbox init')
    } finally {
      await cli.stop()
    }
  })
})
