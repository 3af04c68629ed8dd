import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, runCli, startCli, type RunningCli } from '../helpers/cli.js'
import { TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'

let cli: RunningCli | undefined
afterEach(async () => {
  await cli?.stop()
  cli = undefined
})

const PROBE = fileURLToPath(new URL('./ready-probe.mjs', import.meta.url))

// Intl's first object loads ICU's data (24-29 ms of CPU on a loaded machine): liquidjs made one
// for the default locale as each engine was made, before any first answer.
describe('Intl, loaded only by what formats with it', () => {
  it('serve answers its health and a first send of a template without dates, having made no Intl object', async () => {
    cli = await startCli(
      [
        '--port',
        '0',
        '--memory',
        '--no-open',
        '--templates',
        join(ROOT, 'templates'),
        '--fixtures',
        join(ROOT, 'fixtures'),
      ],
      { env: { NODE_OPTIONS: `--import=${PROBE}` } },
    )
    expect((await fetch(`${cli.url}/_sandbox/api/health`)).status).toBe(200)
    const variables = JSON.parse(
      await readFile(join(ROOT, 'fixtures/order-receipt/default.json'), 'utf8'),
    )
    const sent = await fetch(`${cli.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'order-receipt',
        from: 'shop@acme.test',
        to: ['ada@example.com'],
        subject: 'Your receipt',
        templateVariables: variables,
      }),
    })
    expect(sent.status).toBe(201)
    const { stderr } = await cli.stop()
    cli = undefined
    const atExit = /exit-probe (\{.*\})/.exec(stderr)
    expect(atExit && JSON.parse(atExit[1]!).intl).toEqual([])
  })

  it("a date filter still names months and days in the process's locale", async () => {
    const templatesDir = join(await tempDir(), 'templates')
    await writeFiles(templatesDir, {
      'dated.liquid': '{{ "2026-03-01T10:00:00Z" | date: "%B %A" }}',
    })
    const render = (locale: string) =>
      runCli(['render', 'dated', '--templates', templatesDir], { env: { LC_ALL: locale } })
    const [french, english] = await Promise.all([render('fr_FR.UTF-8'), render('en_US.UTF-8')])
    expect(french.stdout).toContain('mars dimanche')
    expect(english.stdout).toContain('March Sunday')
  })
})
