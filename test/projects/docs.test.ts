import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../../src/index.js'
import { ROOT } from '../helpers/cli.js'
import { bash, fencedBlocks, matchesExample } from '../helpers/docs.js'
import { tempDir } from '../helpers/sandbox.js'

/**
 * Every example of docs/team.md, run as written: its first `yaml` block is the projects file of
 * a server (the example templates, on a free port that stands for 5025), and each `sh` block with
 * a curl answers what the `json` block after it shows.
 */

const PAGE = 'team.md'
const blocks = fencedBlocks(await readFile(join(ROOT, 'docs', PAGE), 'utf8'), `docs/${PAGE}`)

describe('docs/team.md', () => {
  let dir: string
  let sandbox: Sendbox
  beforeAll(async () => {
    dir = await tempDir('sendbox-team-docs-')
    const file = join(dir, 'projects.yml')
    await writeFile(file, blocks.find((b) => b.lang === 'yaml')!.body)
    sandbox = await startSendbox({
      port: 0,
      memory: true,
      templates: join(ROOT, 'templates'),
      fixtures: join(ROOT, 'fixtures'),
      snapshots: join(dir, 'snapshots'),
      projects: file,
    })
  })
  afterAll(async () => {
    await sandbox?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('every curl block answers what the JSON block after it shows', async () => {
    const curls = blocks.filter((b) => b.lang === 'sh' && /^curl /m.test(b.body))
    expect(curls.length).toBeGreaterThanOrEqual(4)
    for (const block of curls) {
      const where = `${block.file}:${block.line}`
      const result = await bash(block.body.replaceAll('http://127.0.0.1:5025', sandbox.url))
      expect(result.code, `${where}: ${result.stderr}`).toBe(0)
      const next = blocks[blocks.indexOf(block) + 1]!
      expect(next.lang, `${where} is followed by its answer`).toBe('json')
      expect(
        matchesExample(JSON.parse(result.stdout), JSON.parse(next.body)),
        `${next.file}:${next.line} against the answer to ${where}\n${result.stdout}`,
      ).toEqual([])
    }
  })
})
