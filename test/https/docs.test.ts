import { readFile } from 'node:fs/promises'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { childEnv, ROOT, startCli, type RunningCli } from '../helpers/cli.js'
import { tempDir } from '../helpers/sandbox.js'
import { run } from './helpers.js'

/**
 * Every example of docs/https.md, run as written: each `npx sendbox …` line is started (on a
 * free port, over the example templates) until it is ready, the shell lines before it are run
 * first, and every other shell block runs against the `--https` server of the first one, in its
 * folder, with port 5025 made that server's. The `js` blocks run as ES modules.
 */

const DOC = join(ROOT, 'docs', 'https.md')
const TEMPLATES = ['--templates', join(ROOT, 'templates'), '--fixtures', join(ROOT, 'fixtures')]
const hasLan = Object.values(networkInterfaces())
  .flat()
  .some((a) => a && a.family === 'IPv4' && !a.internal)

/** The page's fenced blocks (as test/readme-examples.test.ts reads the README's). */
const blocks = [...(await readFile(DOC, 'utf8')).matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(
  (m) => ({
    lang: m[1]!,
    body: m[2]!.replace(/\n$/, ''),
    line: m.input.slice(0, m.index).split('\n').length,
  }),
)
const shell = blocks.filter((b) => b.lang === 'sh')
const starts = (body: string) => body.split('\n').some((l) => l.startsWith('npx sendbox'))

/** Runs what comes before the block's `npx sendbox` line, then starts that line. */
async function startBlock(body: string, cwd: string): Promise<RunningCli> {
  const lines = body.split('\n')
  const at = lines.findIndex((l) => l.startsWith('npx sendbox'))
  const before = lines.slice(0, at).join('\n')
  if (before.trim()) {
    const setup = await run('bash', ['-euo', 'pipefail', '-c', before], childEnv(), cwd)
    expect(setup.code, `${before}\n${setup.stderr}`).toBe(0)
  }
  const args = lines[at]!.replace(/^npx sendbox\s*/, '')
    .split(/\s+/)
    .filter(Boolean)
  return startCli([...args, '--port', '0', ...TEMPLATES], { cwd })
}

describe('docs/https.md', () => {
  let dir: string
  let server: RunningCli
  beforeAll(async () => {
    dir = await tempDir('sendbox-https-docs-')
    const first = shell[0]!
    expect(first.body).toBe('npx sendbox --https')
    server = await startBlock(first.body, dir)
  })
  afterAll(() => server?.stop())

  it('the first start serves https and prints the trust lines the page shows', async () => {
    expect(server.url).toMatch(/^https:/)
    const shown = blocks.find((b) => b.lang === 'text' && b.body.includes('NODE_EXTRA_CA_CERTS'))!
    // The page shows a project with sendbox installed: its docs/ under node_modules/sendbox.
    const printed = server
      .output()
      .stdout.replaceAll(join(ROOT, 'docs'), '/home/ada/shop/node_modules/sendbox/docs')
      .replaceAll(dir, '/home/ada/shop')
    for (const line of shown.body.split('\n')) expect(printed).toContain(line)
  })

  it('every client example trusts it through the CA file alone', async () => {
    const port = new URL(server.url).port
    const clients = shell.filter((b) => !starts(b.body))
    expect(clients.length).toBeGreaterThanOrEqual(3)
    for (const block of clients) {
      const script = block.body.replaceAll('localhost:5025', `localhost:${port}`)
      const inDir = await run('bash', ['-euo', 'pipefail', '-c', script], childEnv(), dir)
      expect(inDir.code, `docs/https.md:${block.line}: ${inDir.stderr}`).toBe(0)
      for (const out of inDir.stdout.trim().split('\n'))
        expect(out, `docs/https.md:${block.line}`).toMatch(/^200$|"status":"ok"/)
    }
  })

  it('the js example runs', async () => {
    const js = blocks.filter((b) => b.lang === 'js')
    expect(js.length).toBeGreaterThanOrEqual(1)
    for (const block of js) {
      const result = await run(
        process.execPath,
        ['--input-type=module', '-e', block.body],
        childEnv(),
        ROOT,
      )
      expect(result.code, `docs/https.md:${block.line}: ${result.stderr}`).toBe(0)
      expect(result.stdout).toMatch(/^https:\/\/127\.0\.0\.1:\d+ 200\n$/)
    }
  })

  it('the own-certificate example starts', async () => {
    const block = shell.find((b) => b.body.includes('--https-cert'))!
    const own = await startBlock(block.body, await tempDir('sendbox-https-docs-'))
    await own.stop()
    expect(own.url).toMatch(/^https:/)
    expect(own.output().stdout).toMatch(/HTTPS {6}your certificate \S+\/localhost\.pem/)
  })

  it.skipIf(!hasLan)('the phone example prints the network URL and a QR code', async () => {
    const block = shell.find((b) => b.body.includes('--host 0.0.0.0'))!
    const phone = await startBlock(block.body, await tempDir('sendbox-https-docs-'))
    await phone.stop()
    const { stdout } = phone.output()
    expect(stdout).toMatch(/➜ Network:\s+http:\/\/[\d.]+:\d+\/_sandbox\/ \[QR code\]/)
    expect(stdout).toMatch(/[▀▄█]{10,}/)
  })
})
