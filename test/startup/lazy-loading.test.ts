import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli, ROOT } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'

const RECORDER = fileURLToPath(new URL('./record-modules.mjs', import.meta.url))

/** The module URLs a CLI run loaded. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const log = join(await tempDir(), 'modules.txt')
  const result = await runCli(args, { env: { NODE_OPTIONS: `--import=${RECORDER}`, SENDBOX_MODULE_LOG: log } })
  expect(result.code, result.stderr).toBeLessThanOrEqual(1)
  return (await readFile(log, 'utf8')).split('\n')
}

const SERVER_SIDE = ['/dist/server/', '/dist/inspector/', '/dist/api/', '/node_modules/listhen/', '/node_modules/h3/']

describe('commands load only what they need', () => {
  for (const args of [['--version'], ['--help'], ['render', 'welcome', '--templates', join(ROOT, 'templates'), '--fixtures', join(ROOT, 'fixtures')]]) {
    it(`sendbox ${args[0]} never loads the server`, async () => {
      const loaded = await modulesLoadedBy(args)
      expect(loaded.some((url) => url.endsWith('/dist/cli/index.js'))).toBe(true)
      expect(loaded.filter((url) => SERVER_SIDE.some((part) => url.includes(part)))).toEqual([])
    })
  }
})
