import { execFileSync } from 'node:child_process'
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, runCli } from '../helpers/cli.js'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

/** A folder of the example `welcome` template, with named pipes where a template and a fixture could be. */
async function folderWithPipes(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-pipes-'))
  dirs.push(dir)
  await cp(join(ROOT, 'templates'), join(dir, 'templates'), { recursive: true })
  await mkdir(join(dir, 'fixtures', 'welcome'), { recursive: true })
  await writeFile(join(dir, 'fixtures', 'welcome', 'other.json'), '{"name":"Ada"}')
  // `welcome.json` beside the `welcome/` folder is the default case, read by its name.
  execFileSync('mkfifo', [
    join(dir, 'fixtures', 'welcome.json'),
    join(dir, 'templates', 'pipe.liquid'),
  ])
  return dir
}

describe.skipIf(process.platform === 'win32')('files that are no files', () => {
  it('a named pipe among the templates and fixtures is passed over, not read: the check ends', async () => {
    const dir = await folderWithPipes()
    const result = await runCli(['check', '--templates', 'templates', '--fixtures', 'fixtures'], {
      cwd: dir,
      timeout: 30_000,
    })
    // Reading the pipe held the start until something wrote to it: SIGKILLed at the timeout.
    expect(result.signal).toBeNull()
    expect(result.stdout).toContain('welcome')
    expect(result.stdout).not.toContain('pipe')
  }, 40_000)
})
