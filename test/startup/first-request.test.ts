import { readFile } from 'node:fs/promises'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, startCli, type RunningCli } from '../helpers/cli.js'
import { TOKEN, tempDir, writeFiles } from '../helpers/sandbox.js'

let cli: RunningCli | undefined
afterEach(async () => {
  await cli?.stop()
  cli = undefined
})

const headers = { authorization: `token ${TOKEN}`, 'content-type': 'application/json' }

// The port opens before the app (h3, the routes) is loaded: what arrives meanwhile waits for it.
describe('requests sent the moment serve is ready', () => {
  it('are answered in full: a send, a template read, the health', async () => {
    cli = await startCli([
      '--port',
      '0',
      '--memory',
      '--no-open',
      '--templates',
      join(ROOT, 'templates'),
      '--fixtures',
      join(ROOT, 'fixtures'),
    ])
    const variables = JSON.parse(
      await readFile(join(ROOT, 'fixtures/order-receipt/default.json'), 'utf8'),
    )
    const send = {
      template: 'order-receipt',
      from: 'shop@acme.test',
      to: ['ada@example.com'],
      subject: 'Your receipt',
    }
    const [sent, template, health] = await Promise.all([
      fetch(`${cli.url}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...send, templateVariables: variables }),
      }),
      fetch(`${cli.url}/templates/welcome`, { headers }),
      fetch(`${cli.url}/_sandbox/api/health`),
    ])
    expect(sent.status, await sent.clone().text()).toBe(201)
    expect(await sent.json()).toMatchObject({ id: expect.any(String), template: 'order-receipt' })
    expect(template.status).toBe(200)
    expect(await template.json()).toMatchObject({ slug: 'welcome' })
    expect(health.status).toBe(200)
    expect(health.statusText).toBe('OK')
    expect(cli.output().stderr).toBe('')
  })
})

describe('serve answers health first', () => {
  it('before its templates are compiled (they are held back until it has answered), counting them all the same', async () => {
    const probe = fileURLToPath(new URL('./hold-templates.mjs', import.meta.url))
    cli = await startCli(
      ['--port', '0', '--memory', '--no-open', '--templates', join(ROOT, 'templates')],
      { env: { NODE_OPTIONS: `--import=${probe}` } },
    )
    const health = await fetch(`${cli.url}/_sandbox/api/health`)
    expect(health.status).toBe(200)
    // The count of the files listed, as the compiled catalog says once it is in.
    expect(await health.json()).toMatchObject({ status: 'ok', templates: 3 })
    // The probe writes its line as the answer is finished, which may reach us after the answer.
    const probed = () => /answer-probe (\{.*\})/.exec(cli!.output().stderr)?.[1]
    await expect.poll(probed).toBeDefined()
    expect(JSON.parse(probed()!)).toEqual({ templatesRead: 0 })
    // Then the templates load, and what needs them is answered.
    const answer = await fetch(`${cli.url}/templates`, { headers })
    expect(answer.status).toBe(200)
    expect(((await answer.json()) as { templates: unknown[] }).templates).toHaveLength(3)
    const again = await fetch(`${cli.url}/_sandbox/api/health`)
    expect(await again.json()).toMatchObject({ status: 'ok', templates: 3 })
  })
})

describe('serve compiles its templates once its port is open', () => {
  it('has read none of them, nor made an Intl object, by its ready line; the first read waits for them', async () => {
    const probe = fileURLToPath(new URL('./ready-probe.mjs', import.meta.url))
    cli = await startCli(
      ['--port', '0', '--memory', '--no-open', '--templates', join(ROOT, 'templates')],
      { env: { NODE_OPTIONS: `--import=${probe}` } },
    )
    const answer = await fetch(`${cli.url}/templates`, { headers })
    expect(answer.status).toBe(200)
    const { templates } = (await answer.json()) as { templates: Array<{ slug: string }> }
    expect(templates.map((t) => t.slug)).toEqual(['order-receipt', 'password-reset', 'welcome'])
    const atReady = /ready-probe (\{.*\})/.exec(cli.output().stderr)
    // Nor has it made an Intl object (Liquid's engines asked one for the default locale, consola's
    // string-width made a Segmenter): the first loads ICU's data.
    expect(atReady && JSON.parse(atReady[1]!)).toEqual({ templates: [], intl: [] })
  })

  it('takes in a template written right after the ready line', async () => {
    const templatesDir = join(await tempDir(), 'templates')
    await writeFiles(templatesDir, { 'old.liquid': 'v1' })
    cli = await startCli(['--port', '0', '--memory', '--no-open', '--templates', templatesDir])
    await writeFile(join(templatesDir, 'fresh.liquid'), 'Hello {{ name }}')
    await writeFile(join(templatesDir, 'old.liquid'), 'v2, longer')
    const read = async (slug: string) => {
      const answer = await fetch(`${cli!.url}/templates/${slug}`, { headers })
      return answer.status === 200 ? ((await answer.json()) as { body: string }).body : null
    }
    await expect.poll(() => read('fresh'), { timeout: 10_000 }).toBe('Hello {{ name }}')
    await expect.poll(() => read('old'), { timeout: 10_000 }).toBe('v2, longer')
  })
})
