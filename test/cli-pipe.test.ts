import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BIN, childEnv } from './helpers/cli.js'
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
