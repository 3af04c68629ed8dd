import { networkInterfaces } from 'node:os'
import { describe, expect, it } from 'vitest'
import { exposureWarning, isLoopbackHost, reachableUrls } from '../../src/server/exposure.js'
import { startCli } from '../helpers/cli.js'

/** What the command line says and keeps quiet about (docs/security.md, exposure; and a quiet console). */

const subscribers = async (url: string) =>
  ((await (await fetch(`${url}/_sandbox/api/health`)).json()) as { subscribers: number })
    .subscribers

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    // A pending /wait sends nothing until it ends, and a wait the server let go tells no one:
    // the health count is the one witness of either, so it is asked again.
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('--host other than a loopback address', () => {
  it('0.0.0.0 warns that the inspector is open, and lists every URL it answers at', async () => {
    const sandbox = await startCli(['--host', '0.0.0.0', '--port', '0', '--memory'])
    const { stderr } = await sandbox.stop()
    const port = new URL(sandbox.url).port
    expect(stderr).toContain('sendbox is listening on 0.0.0.0')
    expect(stderr).toContain('read every message')
    expect(stderr).toContain('--inspector-password')
    const ipv4 = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .filter((a) => a.family === 'IPv4')
    expect(ipv4.length).toBeGreaterThan(0)
    for (const address of ipv4)
      expect(stderr).toContain(`http://${address.address}:${port}/_sandbox/`)
  })

  it('a loopback host says nothing of the kind', async () => {
    for (const host of ['127.0.0.1', '127.0.0.2']) {
      const sandbox = await startCli(['--host', host, '--port', '0', '--memory'])
      const { stderr } = await sandbox.stop()
      expect(stderr).not.toContain('other machines')
    }
  })

  it('knows loopback from the rest, and names what a password protects', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'app.localhost'])
      expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'myname.local', 'fe80::1'])
      expect(isLoopbackHost(host), host).toBe(false)
    const interfaces = {
      lo: [
        { address: '127.0.0.1', family: 'IPv4' },
        { address: '::1', family: 'IPv6' },
      ],
      eth0: [
        { address: '192.168.1.20', family: 'IPv4' },
        { address: 'fe80::1', family: 'IPv6' },
        { address: '2001:db8::5', family: 'IPv6' },
      ],
    } as unknown as ReturnType<typeof networkInterfaces>
    expect(reachableUrls('0.0.0.0', 80, interfaces)).toEqual([
      'http://127.0.0.1:80',
      'http://192.168.1.20:80',
    ])
    expect(reachableUrls('::', 80, interfaces)).toEqual([
      'http://127.0.0.1:80',
      'http://[::1]:80',
      'http://192.168.1.20:80',
      'http://[2001:db8::5]:80',
    ])
    expect(exposureWarning({ host: '127.0.0.1', inspectorPassword: null }, 80)).toBeNull()
    expect(
      exposureWarning({ host: '192.168.1.20', inspectorPassword: 'x' }, 80, interfaces),
    ).toContain('ask for the --inspector-password password')
  })
})

describe('a /wait the client abandons', () => {
  it('ends quietly: no stack trace, no "unexpected error" in the console', async () => {
    const sandbox = await startCli(['--port', '0', '--memory'])
    try {
      const before = await subscribers(sandbox.url)
      const abort = new AbortController()
      const waiting = fetch(
        `${sandbox.url}/_sandbox/api/messages/wait?to=nobody@example.com&timeout=30000`,
        { signal: abort.signal },
      ).catch((error: Error) => error)
      await until(
        async () => (await subscribers(sandbox.url)) === before + 1,
        'the wait to subscribe',
      )
      abort.abort()
      expect(await waiting).toBeInstanceOf(Error)
      await until(async () => (await subscribers(sandbox.url)) === before, 'the wait to end')
    } finally {
      const { stderr } = await sandbox.stop()
      expect(stderr).not.toMatch(/AbortError|Unexpected error|\n\s+at /)
    }
  })
})
