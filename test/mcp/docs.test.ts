import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox, type Sendbox } from '../../src/index.js'
import { projectWithSendbox, ROOT } from '../helpers/cli.js'
import { connectMcp, type McpSession, textOf } from '../helpers/mcp.js'
import { TOKEN, tempDir } from '../helpers/sandbox.js'

/**
 * docs/mcp.md, run as written: the MCP configuration's command is started as an agent starts it
 * (`npx sendbox mcp`, with `sendbox` installed in the project), the Claude Code line says the
 * same, the tools table names every tool, and each tool call shown runs without error.
 */

const DOC = await readFile(join(ROOT, 'docs', 'mcp.md'), 'utf8')

function blocks(lang: string): string[] {
  return [...DOC.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => m[2]!.trim())
}

interface ServerConfig {
  command: string
  args: string[]
  env: Record<string, string>
}

const config = JSON.parse(blocks('json')[0]!) as { mcpServers: Record<string, ServerConfig> }
const sendboxConfig = config.mcpServers.sendbox!

let sandbox: Sendbox
let mcp: McpSession

beforeAll(async () => {
  sandbox = await startSendbox({
    port: 0,
    memory: true,
    templates: join(ROOT, 'templates'),
    fixtures: join(ROOT, 'fixtures'),
  })
  // A project with sendbox installed: `npx sendbox` finds node_modules/.bin/sendbox, this one.
  const project = await projectWithSendbox(await tempDir())
  mcp = await connectMcp([...sendboxConfig.args], {
    command: sendboxConfig.command,
    cwd: project,
    env: {
      ...sendboxConfig.env,
      // The documented URL is the default port; this sandbox listens on a free one.
      SENDBOX_URL: sandbox.url,
      // Never the registry: only the sendbox installed in the project may run.
      npm_config_yes: 'false',
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    },
  })
}, 30_000)
afterAll(async () => {
  await mcp?.close()
  await sandbox?.close()
})

describe('docs/mcp.md', () => {
  it('the MCP configuration starts `npx sendbox mcp` for the default sandbox URL, and it serves', async () => {
    expect(sendboxConfig).toEqual({
      command: 'npx',
      args: ['sendbox', 'mcp'],
      env: { SENDBOX_URL: 'http://127.0.0.1:5025' },
    })
    const result = await mcp.call('list_templates')
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(mcp.client.getInstructions()).toContain(sandbox.url)
  })

  it('README.md shows the same configuration, so its example is the one run here', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
    expect(readme).toContain(`\`\`\`json\n${blocks('json')[0]}\n\`\`\``)
  })

  it('the Claude Code line adds the same server', () => {
    const [line] = blocks('sh').filter((b) => b.startsWith('claude mcp add'))
    const match = /^claude mcp add (\S+) -e (\w+)=(\S+) -- (\S+) (.+)$/.exec(line!)
    expect(match).not.toBeNull()
    const [, name, variable, value, command, args] = match!
    expect(name).toBe(Object.keys(config.mcpServers)[0])
    expect({ [variable!]: value }).toEqual(sendboxConfig.env)
    expect([command, ...args!.split(' ')]).toEqual([sendboxConfig.command, ...sendboxConfig.args])
  })

  it('the tools table names every tool the server lists, in its order', async () => {
    const { tools } = await mcp.client.listTools()
    const documented = [...DOC.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1])
    expect(documented).toEqual(tools.map((t) => t.name))
  })

  it('each tool call shown runs (the application sends after the inbox is cleared)', async () => {
    const calls = blocks('json')
      .slice(1)
      .map((b) => JSON.parse(b) as { name: string; arguments: Record<string, unknown> })
    expect(calls.map((c) => c.name)).toEqual([
      'clear_messages',
      'wait_for_message',
      'render_template',
    ])
    for (const call of calls) {
      const result = await mcp.call(call.name, call.arguments)
      expect(result.isError, `${call.name}: ${textOf(result)}`).toBeFalsy()
      if (call.name === 'clear_messages') {
        const sent = await fetch(`${sandbox.url}/messages`, {
          method: 'POST',
          headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            template: 'password-reset',
            from: 'Acme <hello@acme.test>',
            to: 'Ada <ada@example.com>',
            subject: 'Reset your password',
            templateVariables: JSON.parse(
              await readFile(join(ROOT, 'fixtures', 'password-reset.json'), 'utf8'),
            ),
          }),
        })
        expect(sent.status, await sent.clone().text()).toBe(201)
      }
      if (call.name === 'wait_for_message')
        expect(result.structuredContent).toMatchObject({ subject: 'Reset your password' })
    }
  })
})
