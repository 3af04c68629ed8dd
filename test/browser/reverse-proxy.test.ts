import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, ROOT, startCli } from '../helpers/cli.js'
import { fencedBlocks } from '../helpers/docs.js'
import { codeOf, raw } from '../helpers/http.js'
import { freePort } from '../helpers/free-port.js'
import { findNginx, NGINX_SKIPPED, type Nginx, startNginx } from '../helpers/nginx.js'
import { createCa, issueServerCertificate } from '../../src/server/certificates.js'
import { type Cluster, findPgBin, startCluster } from '../helpers/pg-cluster.js'
import { tempDir } from '../helpers/sandbox.js'
import { hasChromium, launch, screenshot } from './helpers.js'

/**
 * docs/team.md, behind a reverse proxy: the nginx configuration the page gives, read from it, in
 * front of two sendbox processes on one PostgreSQL database with a projects file, as a team runs
 * them. In Chromium, through nginx: sign in with a project's token, and mail sent through either
 * process arrives on the page live; the same behind the page's TLS configuration, with the
 * session cookie made Secure. With nginx's usual `Host $host` instead, the inbox's script
 * is refused, and the process that refused it says why on its console.
 */

const NAME = 'sendbox.example.test'
const ACME = 'sandbox_acme_staging'
const PROJECTS = `projects:
  acme:
    tokens: [sandbox_acme_ci, ${ACME}]
  billing:
    tokens: [sandbox_billing_1]
admin:
  tokens: [sandbox_admin_5c1d]
`

const nginx = findNginx()
const ready = nginx !== null && findPgBin() !== null
if (!ready) {
  if (process.env.SENDBOX_NGINX_REQUIRED)
    throw new Error('SENDBOX_NGINX_REQUIRED is set, but nginx or PostgreSQL was not found.')
  console.warn(NGINX_SKIPPED)
}

/** The page's nginx configurations: the plain one, then the one that terminates TLS. */
async function documented(): Promise<string[]> {
  const page = await readFile(join(ROOT, 'docs', 'team.md'), 'utf8')
  return fencedBlocks(page, 'docs/team.md')
    .filter((block) => block.lang === 'nginx')
    .map((block) => block.body)
}

/**
 * The documented configuration with this run's values: ports (nginx's, the two processes'),
 * files (the certificate). The test must run what the page says, so each must be there.
 */
function substituted(conf: string, values: Array<[string, string]>): string {
  let out = conf
  for (const [from, to] of values) {
    expect(out).toContain(from)
    out = out.replace(from, to)
  }
  return out
}

const welcome = (subject: string) => ({
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.com',
  subject,
  templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
})

describe.skipIf(!ready || !hasChromium)('the inbox behind nginx', { timeout: 120_000 }, () => {
  let cluster: Cluster
  let dir: string
  let processes: RunningCli[] = []
  const proxies: Nginx[] = []
  let browser: Browser
  let plain: string

  beforeAll(async () => {
    cluster = await startCluster()
    dir = await tempDir('sendbox-proxy-')
    await writeFile(join(dir, 'projects.yml'), PROJECTS)
    const args = [
      '--port',
      '0',
      '--templates',
      'templates',
      '--projects',
      join(dir, 'projects.yml'),
    ]
    const env = { SENDBOX_STORE: cluster.url }
    // One first: it creates the tables; the second finds them.
    processes.push(await startCli([...args, '--allowed-host', NAME], { env }))
    processes.push(await startCli([...args, '--allowed-host', NAME], { env }))
    plain = (await documented())[0]!
    browser = await launch([`--host-resolver-rules=MAP ${NAME} 127.0.0.1`])
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
    for (const proxy of proxies) await proxy.stop()
    for (const cli of processes) await cli.stop()
    processes = []
    await cluster?.destroy()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  /** nginx with this configuration in front of the two processes, listening on `port`. */
  async function proxy(conf: string, values: Array<[string, string]> = []): Promise<number> {
    const port = await freePort()
    const [first, second] = processes.map((cli) => new URL(cli.url).port)
    const upstreams: Array<[string, string]> = [
      ['server 127.0.0.1:5025;', `server 127.0.0.1:${first};`],
      ['server 127.0.0.1:5026;', `server 127.0.0.1:${second};`],
    ]
    const listen: Array<[string, string]> = values.length
      ? values.map(([from, to]) => [from, to.replace('PORT', String(port))])
      : [['listen 8080;', `listen 127.0.0.1:${port};`]]
    proxies.push(await startNginx(nginx!, substituted(conf, [...upstreams, ...listen])))
    return port
  }

  async function signIn(page: Page, url: string) {
    await page.goto(url)
    await page.getByLabel('Token').fill(ACME)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.locator('#status[data-state="live"]').waitFor()
  }

  it('signed in through nginx, mail sent through either process arrives live', async () => {
    const port = await proxy(plain)
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    try {
      await signIn(page, `http://${NAME}:${port}/_sandbox/`)
      expect(await page.locator('#session').textContent()).toContain('acme')
      // Through nginx, as an application would send: the Host it is reached under.
      const through = await raw(`http://127.0.0.1:${port}/messages`, {
        method: 'POST',
        headers: {
          host: `${NAME}:${port}`,
          authorization: 'token sandbox_acme_ci',
          'content-type': 'application/json',
        },
        body: JSON.stringify(welcome('Through nginx')),
      })
      expect(through.status).toBe(201)
      // And to each process straight: whichever one holds the page's event stream, the other's
      // send reaches it through the database.
      for (const [index, cli] of processes.entries()) {
        const sent = await fetch(`${cli.url}/messages`, {
          method: 'POST',
          headers: { authorization: 'token sandbox_acme_ci', 'content-type': 'application/json' },
          body: JSON.stringify(welcome(`Straight to process ${index + 1}`)),
        })
        expect(sent.status).toBe(201)
      }
      for (const subject of ['Through nginx', 'Straight to process 1', 'Straight to process 2'])
        await page.locator('#message-list a[data-id]', { hasText: subject }).waitFor()
      await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('live')
      await screenshot(page, 'reverse-proxy-nginx-1280')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('behind the documented TLS proxy: signed in over https, the session cookie Secure, mail live', async () => {
    const now = new Date()
    const ca = await createCa({ now, days: 2 })
    const certificate = await issueServerCertificate(ca, { hosts: [NAME], now, days: 2 })
    await writeFile(join(dir, 'cert.pem'), certificate.cert)
    await writeFile(join(dir, 'key.pem'), certificate.key)
    // The TLS server blocks (and the redirect from port 80), after the page's upstream.
    const upstream = /^upstream sendbox \{[\s\S]*?^\}$/m.exec(plain)![0]
    const tls = `${upstream}\n${(await documented())[1]!}`
    const port = await proxy(tls, [
      ['listen 443 ssl;', 'listen 127.0.0.1:PORT ssl;'],
      ['listen 80;', `listen 127.0.0.1:${await freePort()};`],
      ['/etc/ssl/certs/sendbox.example.test.pem', join(dir, 'cert.pem')],
      ['/etc/ssl/private/sendbox.example.test.key', join(dir, 'key.pem')],
    ])
    // The test's own CA, trusted by this context only.
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    const page = await context.newPage()
    try {
      await signIn(page, `https://${NAME}:${port}/_sandbox/`)
      const cookie = (await context.cookies()).find((c) => c.name === 'sendbox_token')
      expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Strict' })
      const sent = await fetch(`${processes[1]!.url}/messages`, {
        method: 'POST',
        headers: { authorization: 'token sandbox_acme_ci', 'content-type': 'application/json' },
        body: JSON.stringify(welcome('Over TLS')),
      })
      expect(sent.status).toBe(201)
      await page.locator('#message-list a[data-id]', { hasText: 'Over TLS' }).waitFor()
    } finally {
      await context.close()
    }
  })

  it("with nginx's usual `Host $host`, the script is refused and the process says what it compared", async () => {
    const port = await proxy(plain.replaceAll('$http_host', '$host'))
    const context = await browser.newContext()
    const page = await context.newPage()
    try {
      const script = page.waitForResponse((response) => response.url().endsWith('/app.js'))
      await page.goto(`http://${NAME}:${port}/_sandbox/`)
      expect((await script).status()).toBe(403)
      const line = `cross_origin_forbidden: Origin "http://${NAME}:${port}" is not this server's own, http://${NAME} or https://${NAME} (from Host "${NAME}"): the port differs`
      await expect
        .poll(() => processes.map((cli) => cli.output().stdout).join('\n'), { timeout: 10_000 })
        .toContain(line)
      // What the curl of the page's readers would see too, named by its code.
      const answer = await raw(`http://127.0.0.1:${port}/_sandbox/app.js`, {
        headers: { host: `${NAME}:${port}`, origin: `http://${NAME}:${port}` },
      })
      expect(codeOf(answer)).toBe('cross_origin_forbidden')
    } finally {
      await context.close()
    }
  })
})
