import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSendbox } from '../../src/index.js'
import { BIN, childEnv, ROOT, runCli } from '../helpers/cli.js'
import { connectMcp, textOf } from '../helpers/mcp.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/** `sendbox mcp` as a process: where it finds the sandbox, and what it does when there is none. */

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'hello.liquid': 'Hello {{ name }}' })
})
afterAll(() => sandbox?.close())

describe('a sandbox that does not answer', () => {
  it('is a tool error naming the URL and `npx sendbox`, for every tool; once one starts there, the same session works', async () => {
    const port = await closedPort()
    const url = `http://127.0.0.1:${port}`
    const mcp = await connectMcp(['--url', url])
    try {
      for (const [tool, args] of [
        ['list_messages', {}],
        ['get_message', { id: 'msg_1' }],
        ['wait_for_message', { timeout: 100 }],
        ['list_templates', {}],
        ['get_template', { slug: 'hello' }],
        ['render_template', { slug: 'hello', variables: {} }],
        ['check_template', { slug: 'hello' }],
        ['simulate_event', { id: 'msg_1', type: 'opened' }],
        ['clear_messages', {}],
      ] as const) {
        const result = await mcp.call(tool, args)
        expect(result.isError, tool).toBe(true)
        const text = textOf(result)
        expect(text, tool).toMatch(
          /^sandbox_unreachable: No sendbox answers at http:\/\/127\.0\.0\.1:\d+ \(connect ECONNREFUSED/,
        )
        expect(text, tool).toContain(url)
        expect(text, tool).toContain('`npx sendbox`')
      }
      // The agent started the MCP server before the sandbox: it works as soon as one is up.
      const late = await startSendbox({ port, memory: true, templates: sandbox.templatesDir })
      try {
        const result = await mcp.call('list_templates')
        expect(result.isError, textOf(result)).toBeFalsy()
        expect(result.structuredContent).toMatchObject({ templates: [{ slug: 'hello' }] })
      } finally {
        await late.close()
      }
    } finally {
      await mcp.close()
    }
  })

  it('something else on the port (not a sandbox) is a tool error naming the URL', async () => {
    const other: Server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>')
    })
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    const mcp = await connectMcp(['--url', url])
    try {
      const result = await mcp.call('list_messages')
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(
        new RegExp(
          `^not_a_sandbox: ${url} answered 404 text/html, not as a sendbox inspector does`,
        ),
      )
      expect(textOf(result)).toContain('`npx sendbox`')
    } finally {
      await mcp.close()
      await new Promise((resolve) => other.close(resolve))
    }
  })
})

describe('where it finds the sandbox', () => {
  it('SENDBOX_URL without --url; --url wins over SENDBOX_URL; a trailing slash is fine', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`
    for (const [args, env] of [
      [[], { SENDBOX_URL: sandbox.url }],
      [['--url', `${sandbox.url}/`], { SENDBOX_URL: closed }],
    ] as const) {
      const mcp = await connectMcp([...args], { env })
      try {
        const result = await mcp.call('list_templates')
        expect(result.isError, textOf(result)).toBeFalsy()
        expect(mcp.client.getInstructions()).toContain(sandbox.url)
      } finally {
        await mcp.close()
      }
    }
  })

  it('defaults to http://127.0.0.1:5025', async () => {
    const mcp = await connectMcp([])
    try {
      expect(mcp.client.getInstructions()).toContain('(at http://127.0.0.1:5025)')
    } finally {
      await mcp.close()
    }
  })

  it('a --url or SENDBOX_URL that is not an http(s) URL is bad usage (exit 2), named', async () => {
    const bad = await runCli(['mcp', '--url', 'localhost:5025'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^sendbox: --url: "localhost:5025" is not an http\(s\) URL/)
    const env = await runCli(['mcp'], { env: { SENDBOX_URL: 'nope' } })
    expect(env.code).toBe(2)
    expect(env.stderr).toMatch(/^sendbox: SENDBOX_URL: "nope" is not a URL/)
    const extra = await runCli(['mcp', 'serve'])
    expect(extra.code).toBe(2)
    const unknown = await runCli(['mcp', '--ur', 'http://x'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Did you mean --url?')
  })

  it('--help names the flag, its variable and default, and the tools', async () => {
    const help = await runCli(['mcp', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Usage: sendbox mcp [flags]')
    expect(help.stdout).toMatch(
      /--url <url>.*\(default: http:\/\/127\.0\.0\.1:5025\) \[env SENDBOX_URL\]/,
    )
    expect(help.stdout).toContain('wait_for_message')
    const main = await runCli(['--help'])
    expect(main.stdout).toContain('sendbox mcp')
  })
})

describe('a sandbox started with --inspector-password', () => {
  it('refused without the password (the error says how to give it); served with SENDBOX_INSPECTOR_PASSWORD or the flag, never shown', async () => {
    const guarded = await startTestSandbox(
      { 'hello.liquid': 'Hello {{ name }}' },
      { inspectorPassword: 's3cret-pw' },
    )
    try {
      const without = await connectMcp(['--url', guarded.url])
      try {
        const result = await without.call('list_templates')
        expect(result.isError).toBe(true)
        expect(textOf(result)).toMatch(/^unauthorized: The inspector is protected/)
        expect(textOf(result)).toContain('SENDBOX_INSPECTOR_PASSWORD')
      } finally {
        await without.close()
      }
      for (const [args, env] of [
        [[], { SENDBOX_INSPECTOR_PASSWORD: 's3cret-pw' }],
        [['--inspector-password', 's3cret-pw'], {}],
      ] as const) {
        const mcp = await connectMcp(['--url', guarded.url, ...args], { env })
        try {
          const result = await mcp.call('list_templates')
          expect(result.isError, textOf(result)).toBeFalsy()
          expect(mcp.stderr()).not.toContain('s3cret-pw')
          expect(mcp.client.getInstructions()).not.toContain('s3cret-pw')
        } finally {
          await mcp.close()
        }
      }
      const wrong = await connectMcp(['--url', guarded.url], {
        env: { SENDBOX_INSPECTOR_PASSWORD: 'nope' },
      })
      try {
        expect(textOf(await wrong.call('list_templates'))).toContain('the one it has was refused')
      } finally {
        await wrong.close()
      }
      const inUrl = await runCli(['mcp', '--url', guarded.url.replace('//', '//:s3cret-pw@')])
      expect(inUrl.code).toBe(2)
      expect(inUrl.stderr).toContain('without credentials')
      expect(inUrl.stderr).not.toContain('s3cret-pw')
    } finally {
      await guarded.close()
    }
  })
})

const subscribers = async () =>
  ((await (await fetch(`${sandbox.url}/_sandbox/api/health`)).json()) as { subscribers: number })
    .subscribers
const until = async (done: () => Promise<boolean>) => {
  while (!(await done())) await new Promise((resolve) => setImmediate(resolve))
}

describe('its lifetime', () => {
  it('a call the agent cancels stops its wait in the sandbox', async () => {
    const mcp = await connectMcp(['--url', sandbox.url])
    try {
      const before = await subscribers()
      const abort = new AbortController()
      const call = mcp.client.callTool(
        { name: 'wait_for_message', arguments: { to: 'never', timeout: 60_000 } },
        undefined,
        { signal: abort.signal },
      )
      await until(async () => (await subscribers()) > before)
      abort.abort()
      await expect(call).rejects.toThrow(/abort/i)
      await until(async () => (await subscribers()) === before)
      // The session goes on.
      expect((await mcp.call('list_templates')).isError).toBeFalsy()
    } finally {
      await mcp.close()
    }
  })

  it('stops when the agent closes its stdin, even with a wait in flight', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--url', sandbox.url], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    const answers: Array<{ id?: number }> = []
    let buffered = ''
    const answered = (id: number) =>
      new Promise<void>((resolve) => {
        const look = () => {
          if (answers.some((a) => a.id === id)) resolve()
          else child.stdout.once('data', look)
        }
        look()
      })
    child.stdout.on('data', (chunk) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) if (line) answers.push(JSON.parse(line))
    })
    const sendLine = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    sendLine({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    })
    await answered(1)
    sendLine({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const before = await subscribers()
    sendLine({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait_for_message', arguments: { to: 'never', timeout: 60_000 } },
    })
    // The wait is pending in the sandbox: then the agent goes away.
    await until(async () => (await subscribers()) > before)
    child.stdin.end()
    expect(await exited).toBe(0)
    // The hung-up wait is gone from the sandbox too.
    await until(async () => (await subscribers()) === before)
  })
})
