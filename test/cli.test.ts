import { createServer, type Server } from 'node:net'
import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { runCli, startCli } from './helpers/cli.js'

const pkg = (await import('../package.json', { with: { type: 'json' } })).default

function occupyPort(): Promise<{ port: number; server: Server }> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as { port: number }).port, server }),
    )
  })
}

describe('the command line', () => {
  it('--version prints the package version', async () => {
    const result = await runCli(['--version'])
    expect(result.code).toBe(0)
    expect(result.stdout.trim()).toBe(pkg.version)
  })

  it('--help lists every flag with its default and environment variable', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    for (const flag of [
      '--port',
      '--host',
      '--templates',
      '--fixtures',
      '--db',
      '--memory',
      '--max-messages',
      '--token',
      '--token-prefix',
      '--lenient',
      '--max-body',
      '--no-open',
    ]) {
      expect(result.stdout).toContain(flag)
    }
    expect(result.stdout).toContain('SENDBOX_PORT')
    expect(result.stdout).toContain('SENDBOX_MAX_BODY')
    expect(result.stdout).toMatch(/default: 5025/)
    expect(result.stdout).toMatch(/default: 127\.0\.0\.1/)
    expect(result.stdout).toMatch(/default: \.sendbox\/messages\.jsonl/)
  })

  it.each([
    [['--port', 'abc'], '--port'],
    [['--port', '70000'], '--port'],
    [['--max-body', '0'], '--max-body'],
    [['--max-body', 'lots'], '--max-body'],
    [['--max-messages', '0'], '--max-messages'],
    [['--templates', 'package.json'], '--templates'],
  ])('a bad value %j is one line naming %s, exit 2', async (args, flag) => {
    const result = await runCli(['--memory', ...args])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(flag)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('an unknown flag is exit 2 with a did-you-mean', async () => {
    const result = await runCli(['--prot', '5000'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--prot')
    expect(result.stderr).toContain('--port')
  })

  it('prints the API URL, the inbox URL, a sample token and a ready line', async () => {
    const sendbox = await startCli(['--port', '0', '--memory'])
    try {
      const { stdout } = sendbox.output()
      expect(sendbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(stdout).toContain(`${sendbox.url}/_sandbox/`)
      expect(stdout).toMatch(/Token\s+sandbox_\w+/)
      const health = await fetch(`${sendbox.url}/_sandbox/api/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toMatchObject({
        status: 'ok',
        version: pkg.version,
        templates: expect.any(Number),
        messages: 0,
      })
    } finally {
      await sendbox.stop()
    }
  })

  it('a busy port is a clear error naming the port, exit 1', async () => {
    const { port, server } = await occupyPort()
    try {
      const result = await runCli(['--port', String(port), '--memory'])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(String(port))
      expect(result.stderr).toMatch(/in use/)
    } finally {
      server.close()
    }
  })

  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops the server with exit 0', async (signal) => {
    const sendbox = await startCli(['--port', '0', '--memory'])
    const result = await sendbox.stop(signal)
    expect(result.code).toBe(0)
    await expect(fetch(`${sendbox.url}/_sandbox/api/health`)).rejects.toThrow()
  })

  it('an environment variable does what its flag does, and the flag wins', async () => {
    const { port, server } = await occupyPort()
    try {
      const fromEnv = await runCli(['--memory'], { env: { SENDBOX_PORT: String(port) } })
      expect(fromEnv.code).toBe(1)
      expect(fromEnv.stderr).toContain(String(port))
      const badEnv = await runCli(['--memory'], { env: { SENDBOX_MAX_BODY: 'nope' } })
      expect(badEnv.code).toBe(2)
      expect(badEnv.stderr).toContain('--max-body')
    } finally {
      server.close()
    }
    const sendbox = await startCli(['--port', '0', '--memory'], {
      env: { SENDBOX_PORT: 'abc', SENDBOX_TOKEN: 'exact-token-one' },
    })
    try {
      const ok = await fetch(`${sendbox.url}/templates`, {
        headers: { authorization: 'token exact-token-one' },
      })
      expect(ok.status).toBe(200)
      const prefixOnly = await fetch(`${sendbox.url}/templates`, {
        headers: { authorization: 'token sandbox_abc' },
      })
      expect(prefixOnly.status).toBe(403)
    } finally {
      await sendbox.stop()
    }
  })

  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address
  it.skipIf(!external)(
    '--host 0.0.0.0 binds every interface (reachable on a non-loopback address)',
    async () => {
      const sendbox = await startCli(['--port', '0', '--memory', '--host', '0.0.0.0'])
      try {
        const port = new URL(sendbox.url).port
        const health = await fetch(`http://${external}:${port}/_sandbox/api/health`)
        expect(health.status).toBe(200)
      } finally {
        await sendbox.stop()
      }
    },
  )

  it('GET / redirects a browser to the inbox', async () => {
    const sendbox = await startCli(['--port', '0', '--memory'])
    try {
      const response = await fetch(`${sendbox.url}/`, {
        redirect: 'manual',
        headers: { accept: 'text/html' },
      })
      expect(response.status).toBe(302)
      expect(response.headers.get('location')).toBe('/_sandbox/')
    } finally {
      await sendbox.stop()
    }
  })
})
