import { existsSync } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { get } from 'node:https'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ConfigError,
  connectSendbox,
  SendboxUnreachableError,
  startSendbox,
  type Sendbox,
} from '../../src/index.js'
import { tempDir, TOKEN } from '../helpers/sandbox.js'
import { ROOT } from '../helpers/cli.js'
import { httpsRequest, PYTHON_STRICT, run } from './helpers.js'

/** docs/https.md#trust-the-ca: everything over HTTPS, trusted through the CA file alone. */

const TEMPLATES = join(ROOT, 'templates')
const FIXTURES = join(ROOT, 'fixtures')
const mode = async (path: string) => (await stat(path)).mode & 0o777
const welcome = JSON.stringify({
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.com',
  subject: 'Welcome',
  templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/app' },
})

describe('startSendbox({ https: true })', () => {
  let sandbox: Sendbox
  beforeAll(async () => {
    sandbox = await startSendbox({
      port: 0,
      memory: true,
      https: true,
      templates: TEMPLATES,
      fixtures: FIXTURES,
    })
  })
  afterAll(() => sandbox.close())

  it('serves https, and hands out the CA as PEM and as a file', async () => {
    expect(sandbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(sandbox.inboxUrl).toBe(`${sandbox.url}/_sandbox/`)
    expect(sandbox.ca).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/)
    expect(await readFile(sandbox.caFile!, 'utf8')).toBe(sandbox.ca)
    expect(await mode(sandbox.caFile!)).toBe(0o600)
    expect(await mode(join(sandbox.caFile!, '..'))).toBe(0o700)
    expect(await mode(join(sandbox.caFile!, '..', 'ca-key.pem'))).toBe(0o600)
  })

  it('Node (https with ca) sends a message and reads the inbox, CSP and all', async () => {
    const sent = await httpsRequest(`${sandbox.url}/messages`, {
      ca: sandbox.ca,
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: welcome,
    })
    expect(sent.status, sent.body).toBe(201)
    const page = await httpsRequest(sandbox.inboxUrl, { ca: sandbox.ca })
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'")
    const [message] = await sandbox.messages({ to: 'ada@example.com' })
    expect(message?.id).toBe(JSON.parse(sent.body).id)
  })

  it('the OpenAPI document names the https server', async () => {
    const doc = await httpsRequest(`${sandbox.url}/_sandbox/api/openapi.json`, { ca: sandbox.ca })
    expect(JSON.parse(doc.body).servers).toEqual([{ url: sandbox.url }])
  })

  it('a request Node cannot parse gets the JSON 400 over TLS too', async () => {
    const socket = connect({ port: sandbox.port, host: '127.0.0.1', ca: sandbox.ca! })
    let answer = ''
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk))
    const ended = new Promise((resolve) => socket.once('close', resolve))
    socket.write('NOT HTTP AT ALL\r\n\r\n')
    await ended
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    expect(answer).toContain('"code":"bad_request"')
  })

  it('a client without the CA is refused', async () => {
    await expect(httpsRequest(`${sandbox.url}/_sandbox/api/health`, {})).rejects.toMatchObject({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    })
    await expect(fetch(`${sandbox.url}/_sandbox/api/health`)).rejects.toThrow()
  })

  it('connectSendbox without the CA names the cause and NODE_EXTRA_CA_CERTS, not a missing sandbox', async () => {
    const error = await connectSendbox(sandbox.url)
      .messages()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SendboxUnreachableError)
    const message = (error as Error).message
    expect(message).toContain('a certificate this process does not trust')
    expect(message).toContain('NODE_EXTRA_CA_CERTS=')
    expect(message).not.toContain('No sendbox answers')
  })

  it('plain HTTP to the HTTPS port is answered, in plain HTTP, with what to use instead', async () => {
    const url = `${sandbox.url.replace('https://', 'http://')}/_sandbox/api/health`
    const response = await fetch(url)
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('bad_request')
    expect(body.error.message).toContain('use https://')
    const curl = await run('curl', ['-sS', url])
    expect(curl.stdout).toContain('This sandbox serves HTTPS')
    const error = await connectSendbox(sandbox.url.replace('https://', 'http://'))
      .messages()
      .catch((e: unknown) => e)
    expect((error as Error).message).toContain('use https://')
  })

  it('curl --cacert trusts it; curl without is refused', async () => {
    const url = `${sandbox.url.replace('127.0.0.1', 'localhost')}/_sandbox/api/health`
    const ok = await run('curl', ['-sS', '--fail', '--cacert', sandbox.caFile!, url])
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout)).toMatchObject({ status: 'ok' })
    const refused = await run('curl', ['-sS', url], {
      ...process.env,
      SSL_CERT_FILE: '',
      CURL_CA_BUNDLE: '',
    })
    expect(refused.code).toBe(60) // CURLE_PEER_FAILED_VERIFICATION
  })

  it('Python with VERIFY_X509_STRICT trusts it by the CA file, by IP and by name', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const url = `${sandbox.url.replace('127.0.0.1', host)}/_sandbox/api/health`
      const python = await run('python3', ['-c', PYTHON_STRICT, sandbox.caFile!, url])
      expect(python.stderr).toBe('')
      expect(python.stdout).toMatch(/^200 \{"status":"ok"/)
    }
  })

  it('the event stream works over TLS', async () => {
    const frames = await new Promise<string>((resolve, reject) => {
      const req = get(
        `${sandbox.url}/_sandbox/api/events`,
        { ca: sandbox.ca!, agent: false },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            text += chunk
            if (text.includes(': connected')) {
              void httpsRequest(`${sandbox.url}/messages`, {
                ca: sandbox.ca,
                method: 'POST',
                headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
                body: welcome,
              })
            }
            if (text.includes('event: message')) {
              req.destroy()
              resolve(text)
            }
          })
        },
      )
      req.on('error', reject)
    })
    expect(frames).toContain('ada@example.com')
  })

  it('an Origin is its own only over https', async () => {
    const host = new URL(sandbox.url).host
    const ask = (origin: string) =>
      httpsRequest(`${sandbox.url}/_sandbox/api/faults`, {
        ca: sandbox.ca,
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 503, count: 1 }),
      })
    const own = await ask(`https://${host}`)
    expect(own.status, own.body).toBe(201)
    const plain = await ask(`http://${host}`)
    expect(plain.status).toBe(403)
    expect(JSON.parse(plain.body).error.code).toBe('cross_origin_forbidden')
  })
})

it('with --memory, the CA lives in a temporary folder removed at close', async () => {
  const sandbox = await startSendbox({ port: 0, memory: true, https: true, templates: TEMPLATES })
  const dir = join(sandbox.caFile!, '..')
  expect(existsSync(dir)).toBe(true)
  await sandbox.close()
  expect(existsSync(dir)).toBe(false)
})

describe('beside the log', () => {
  const start = (dir: string, extra = {}) =>
    startSendbox({ port: 0, https: true, cwd: dir, templates: TEMPLATES, ...extra })
  const served = async (sandbox: Sendbox) =>
    (await httpsRequest(`${sandbox.url}/_sandbox/api/health`, { ca: sandbox.ca })).fingerprint

  it('keeps the CA in the log folder and reuses it, and the certificate, across restarts', async () => {
    const dir = await tempDir('sendbox-https-')
    const first = await start(dir)
    expect(first.caFile).toBe(join(dir, '.sendbox', 'ca.pem'))
    const certificate = await served(first)
    await first.close()
    const second = await start(dir)
    expect(second.ca).toBe(first.ca)
    expect(await served(second)).toBe(certificate)
    await second.close()
  })

  it('renews a server certificate near its end, keeping the CA', async () => {
    const dir = await tempDir('sendbox-https-')
    // 20 days: fewer than the 30 left at which a start makes a new one.
    const first = await start(dir, { httpsCertDays: 20 })
    const old = await served(first)
    await first.close()
    const second = await start(dir)
    expect(second.ca).toBe(first.ca)
    expect(await served(second)).not.toBe(old)
    await second.close()
  })
})

describe('your own certificate', () => {
  let dir: string
  beforeAll(async () => {
    dir = await tempDir('sendbox-own-')
    const made = await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ])
    expect(made.code, made.stderr).toBe(0)
    const other = await run('openssl', [
      'genpkey',
      '-algorithm',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-out',
      join(dir, 'other-key.pem'),
    ])
    expect(other.code, other.stderr).toBe(0)
  })

  it('--https-cert and --https-key serve it, with no CA of sendbox', async () => {
    const sandbox = await startSendbox({
      port: 0,
      memory: true,
      templates: TEMPLATES,
      httpsCert: join(dir, 'cert.pem'),
      httpsKey: join(dir, 'key.pem'),
    })
    try {
      expect(sandbox.url).toMatch(/^https:/)
      expect([sandbox.ca, sandbox.caFile]).toEqual([null, null])
      const cert = await readFile(join(dir, 'cert.pem'), 'utf8')
      const health = await httpsRequest(`${sandbox.url}/_sandbox/api/health`, { ca: cert })
      expect(health.status).toBe(200)
    } finally {
      await sandbox.close()
    }
  })

  it.each([
    [{ httpsCert: 'cert.pem' }, '--https-key: needed with --https-cert'],
    [{ httpsKey: 'key.pem' }, '--https-cert: needed with --https-key'],
    [{ httpsCert: 'missing.pem', httpsKey: 'key.pem' }, '--https-cert: could not read'],
    [{ httpsCert: 'key.pem', httpsKey: 'key.pem' }, '--https-cert: '],
    [{ httpsCert: 'cert.pem', httpsKey: 'cert.pem' }, '--https-key: '],
    [{ httpsCert: 'cert.pem', httpsKey: 'other-key.pem' }, 'is not the key of the certificate'],
  ])('%j is a ConfigError naming the flag', async (options, message) => {
    const start = startSendbox({
      port: 0,
      memory: true,
      cwd: dir,
      templates: TEMPLATES,
      ...options,
    })
    await expect(start).rejects.toBeInstanceOf(ConfigError)
    await expect(start).rejects.toThrow(message)
  })
})
