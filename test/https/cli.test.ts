import { createServer } from 'node:net'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runCli, startCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'
import { run } from './helpers.js'

/** `sendbox --https` and a network `--host` from the command line (docs/https.md, docs/security.md). */

const TEMPLATES = ['--templates', join(ROOT, 'templates'), '--fixtures', join(ROOT, 'fixtures')]

/** A non-loopback IPv4 address of this machine, if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address

describe('sendbox --https', () => {
  it('prints the CA and how to trust it; Node trusts it through NODE_EXTRA_CA_CERTS alone', async () => {
    const dir = await tempDir('sendbox-https-cli-')
    const cli = await startCli(['--https', '--port', '0', ...TEMPLATES], { cwd: dir })
    try {
      const caFile = join(dir, '.sendbox', 'ca.pem')
      expect(cli.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      const { stdout } = cli.output()
      expect(stdout).toContain(`Inbox      ${cli.url}/_sandbox/`)
      expect(stdout).toContain(`CA         ${caFile}`)
      for (const line of [
        `NODE_EXTRA_CA_CERTS=${caFile}`,
        `SSL_CERT_FILE=${caFile}`,
        `REQUESTS_CA_BUNDLE=${caFile}`,
        'Browser    import it as a trusted authority',
        // The page as the package holds it (docs/ ships), not a path of the user's project.
        `More       ${join(ROOT, 'docs', 'https.md')}`,
      ])
        expect(stdout).toContain(line)
      const script = `const r = await fetch(process.argv[1]); console.log(r.status)`
      const url = `${cli.url}/_sandbox/api/health`
      const trusted = await run(process.execPath, ['--input-type=module', '-e', script, url], {
        ...process.env,
        NODE_EXTRA_CA_CERTS: caFile,
      })
      expect(trusted.stdout.trim(), trusted.stderr).toBe('200')
      const untrusted = await run(process.execPath, ['--input-type=module', '-e', script, url])
      expect(untrusted.code).not.toBe(0)
    } finally {
      await cli.stop()
    }
  })

  it('SENDBOX_HTTPS=1 turns it on too', async () => {
    const cli = await startCli(['--port', '0', '--memory', ...TEMPLATES], {
      env: { SENDBOX_HTTPS: '1' },
    })
    await cli.stop()
    expect(cli.url).toMatch(/^https:/)
  })

  it('a busy fixed port is a clear error, as over HTTP (listhen does not move to another)', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    const port = (holder.address() as { port: number }).port
    try {
      const result = await runCli(['--https', '--memory', '--port', String(port), ...TEMPLATES])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`Port ${port} is already in use`)
    } finally {
      holder.close()
    }
  })

  it('an address this machine does not have is a clear error naming the cause, not a busy port', async () => {
    // TEST-NET-2: never an address of this machine.
    const args = ['--https', '--memory', '--host', '198.51.100.7', '--port', '5999', ...TEMPLATES]
    const result = await runCli(args)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Could not listen on port 5999 on 198.51.100.7')
    expect(result.stderr).toContain('EADDRNOTAVAIL')
  })

  it('--https-cert without --https-key is a usage error', async () => {
    const result = await runCli(['--https-cert', 'cert.pem', '--memory', ...TEMPLATES])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--https-key: needed with --https-cert')
  })
})

describe.skipIf(!lanAddress)('a network --host', () => {
  it('prints the inbox on the network with a QR code, keeps the warning, and serves the address over HTTPS', async () => {
    const dir = await tempDir('sendbox-https-cli-')
    const cli = await startCli(['--host', '0.0.0.0', '--https', '--port', '0', ...TEMPLATES], {
      cwd: dir,
    })
    try {
      const port = new URL(cli.url).port
      const network = `https://${lanAddress}:${port}/_sandbox/`
      const { stdout, stderr } = cli.output()
      expect(stdout).toMatch(new RegExp(`Network:\\s+${network.replace(/[.]/g, '\\.')}`))
      // listhen's QR code: half-block characters, printed before the URLs.
      expect(stdout).toMatch(/[▀▄█]{10,}/)
      expect(stderr).toContain('which other machines can reach')
      expect(stderr).toContain(network)
      expect(stderr).toContain('--inspector-password')
      // The certificate covers the address a phone opens.
      const curl = await run('curl', [
        '-sS',
        '--fail',
        '--cacert',
        join(dir, '.sendbox', 'ca.pem'),
        `${network}../_sandbox/api/health`,
      ])
      expect(curl.code, curl.stderr).toBe(0)
    } finally {
      await cli.stop()
    }
  })

  it('over plain HTTP too', async () => {
    const cli = await startCli(['--host', '0.0.0.0', '--memory', '--port', '0', ...TEMPLATES])
    try {
      const port = new URL(cli.url).port
      expect(cli.output().stdout).toContain(`http://${lanAddress}:${port}/_sandbox/`)
      const health = await fetch(`http://${lanAddress}:${port}/_sandbox/api/health`)
      expect(health.status).toBe(200)
    } finally {
      await cli.stop()
    }
  })
})
