import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, ROOT, childEnv, startCli } from './helpers/cli.js'
import { freePort } from './helpers/free-port.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'

/**
 * A command's output through a real pipe into another process, as `sendbox check --json | jq`
 * in CI: whole, however much there is. It exited as soon as it had written, and a pipe takes
 * 64 KB before its reader has read: the rest was lost.
 */

/** What the reader of the pipe got: its size, and the problems once parsed (or why not). */
const READER = `let s = ''
process.stdin.setEncoding('utf8').on('data', (d) => (s += d)).on('end', () => {
  const bytes = Buffer.byteLength(s)
  try { console.log(JSON.stringify({ bytes, problems: JSON.parse(s).problems.length })) }
  catch (e) { console.log(JSON.stringify({ bytes, error: e.message })) }
})`

/**
 * `sendbox check --json … | node -e READER` in bash, the pipe between the two children as a CI
 * script has it; the exit status is sendbox's (pipefail).
 */
function pipedIntoReader(templates: string, fixtures: string, cwd: string) {
  const pipeline =
    'set -o pipefail; "$NODE" "$BIN" check --json --templates "$T" --fixtures "$F" | "$NODE" -e "$READER"'
  const shell = spawn('bash', ['-c', pipeline], {
    cwd,
    env: childEnv({ NODE: process.execPath, BIN, T: templates, F: fixtures, READER }),
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  let out = ''
  shell.stdout.on('data', (d) => (out += d))
  return new Promise<{
    code: number | null
    read: { bytes: number; problems?: number; error?: string }
  }>((resolve) => shell.on('close', (code) => resolve({ code, read: JSON.parse(out) })))
}

describe('output through a pipe', () => {
  it('sendbox check --json: the whole JSON, well over 64 KB, reaches the reader', async () => {
    const dir = await tempDir('sendbox-pipe-')
    // 20 templates of 40 images each on plain http without alt or size: 2,400 problems.
    const images = Array.from(
      { length: 40 },
      (_, i) => `<img src="http://cdn.acme.test/a-rather-long-image-name-${i}.png">`,
    ).join('\n')
    const files: Record<string, string> = {}
    for (let t = 0; t < 20; t++)
      files[`templates/t${t}.liquid`] =
        `<p>Hello {{ name }}, here are your pictures.</p>\n${images}`
    for (let t = 0; t < 20; t++) files[`fixtures/t${t}.json`] = '{"name":"Ada"}'
    await writeFiles(dir, files)
    const { code, read } = await pipedIntoReader(join(dir, 'templates'), join(dir, 'fixtures'), dir)
    expect(read.error).toBeUndefined()
    expect(read.bytes).toBeGreaterThan(256 * 1024)
    expect(read.problems).toBeGreaterThanOrEqual(20 * 40 * 3)
    // Warnings only: the check passes.
    expect(code).toBe(0)
  })
})

/** A send of the example `welcome` template: what makes `serve` write a line of its log. */
const welcome = (url: string) =>
  fetch(`${url}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_pipe', 'content-type': 'application/json' },
    body: JSON.stringify({
      template: 'welcome',
      from: 'a@acme.test',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test' },
    }),
  })

describe('serve, its output read by a process that goes away', { timeout: 30_000 }, () => {
  // `sendbox | head -1`, or a CI step that stops reading: the next line written (a send's log
  // line) met a closed pipe (EPIPE), an unhandled 'error' event, and the server died.
  for (const closed of [['stdout'], ['stdout', 'stderr']] as const)
    it(`goes on serving once its ${closed.join(' and ')} reader has gone`, async () => {
      // Not as npm's child (which `npm test` makes it): that one stops with its parent, and
      // took a reader gone for its parent gone, the only case that did not crash.
      const cli = await startCli(['--port', '0', '--memory', '--templates', 'templates'], {
        env: { npm_lifecycle_event: '', npm_command: '' },
      })
      const { child, url } = cli
      // The reader's end of each pipe closes: sendbox's next write there fails with EPIPE.
      for (const stream of closed) child[stream]!.destroy()
      for (let i = 0; i < 3; i++) expect((await welcome(url)).status).toBe(201)
      expect((await fetch(`${url}/_sandbox/api/health`)).status).toBe(200)
      expect(child.exitCode).toBeNull()
      const { code, stderr: err } = await cli.stop()
      expect(code).toBe(0)
      expect(err).not.toMatch(/EPIPE|Unhandled/)
    })
})

describe('serve, its output on a full disk', { timeout: 30_000 }, () => {
  // /dev/full: every write fails with ENOSPC, as `sendbox > serve.log` does once the disk is full.
  it.runIf(process.platform === 'linux')(
    'serves, and says once on stderr that its lines are dropped',
    async () => {
      const full = await open('/dev/full', 'w')
      const port = await freePort()
      const child = spawn(
        process.execPath,
        [BIN, '--port', String(port), '--memory', '--templates', join(ROOT, 'templates')],
        { env: childEnv(), stdio: ['ignore', full.fd, 'pipe'] },
      )
      await full.close()
      let err = ''
      child.stderr!.on('data', (d) => (err += d))
      const url = `http://127.0.0.1:${port}`
      await expect
        .poll(
          () =>
            fetch(`${url}/_sandbox/api/health`).then(
              (r) => r.status,
              () => 0,
            ),
          {
            timeout: 15_000,
            interval: 50,
          },
        )
        .toBe(200)
      for (let i = 0; i < 2; i++) expect((await welcome(url)).status).toBe(201)
      child.kill('SIGTERM')
      const [code] = await once(child, 'exit')
      expect(code).toBe(0)
      expect(
        err.match(/cannot write to standard output \(ENOSPC\); its lines are dropped\./g),
      ).toHaveLength(1)
    },
  )
})
