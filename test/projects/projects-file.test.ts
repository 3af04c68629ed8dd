import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectSendbox } from '../../src/index.js'
import { createProjects, parseProjects, ProjectsFileError } from '../../src/core/projects.js'
import { runCli, startCli } from '../helpers/cli.js'
import { LOG_FORMAT } from '../../src/store/log-format.js'
import { connectMcp, textOf } from '../helpers/mcp.js'
import { startReceiver, type Receiver } from '../helpers/receiver.js'
import { errorOf, startTestSandbox, tempDir, type TestSandbox } from '../helpers/sandbox.js'
import { Webhook } from 'standardwebhooks'

const FILE = `projects:
  acme:
    tokens: [sandbox_acme_ci, sandbox_acme_staging]
    webhooks:
      - url: https://staging.acme.test/hooks/mail
        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  billing:
    tokens: [sandbox_billing_1]
admin:
  tokens: [sandbox_admin_5c1d]
`

describe('a projects file', () => {
  it('reads YAML, and JSON', () => {
    const definition = parseProjects(FILE, 'projects.yml')
    expect(definition).toEqual({
      projects: {
        acme: {
          tokens: ['sandbox_acme_ci', 'sandbox_acme_staging'],
          webhooks: [
            {
              url: 'https://staging.acme.test/hooks/mail',
              secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
            },
          ],
        },
        billing: { tokens: ['sandbox_billing_1'] },
      },
      admin: { tokens: ['sandbox_admin_5c1d'] },
    })
    expect(parseProjects(JSON.stringify(definition), 'projects.json')).toEqual(definition)
  })

  it('knows each token, and only those', () => {
    const projects = createProjects(parseProjects(FILE, 'projects.yml'))
    expect(projects.identify('sandbox_acme_staging')).toEqual({ kind: 'project', project: 'acme' })
    expect(projects.identify('sandbox_admin_5c1d')).toEqual({ kind: 'admin', project: 'admin' })
    expect(projects.identify('sandbox_acme')).toBeUndefined()
    expect(projects.identify('sandbox_acme_ci ')).toBeUndefined()
  })

  it.each([
    ['projects:\n  acme:\n    tokens: [a, b\n', 'projects.yml:4:1', 'does not parse'],
    [
      'projects:\n  acme:\n    tokens: [sandbox_a]\n  billing:\n    tokens: [sandbox_a]\n',
      'projects.yml:5:14',
      'already acme',
    ],
    ['projects:\n  acme:\n    tokens: []\n', 'projects.yml:3:13', 'one or more'],
    ['projects:\n  acme: {}\n', 'projects.yml:2:9', 'needs "tokens"'],
    ['projects: {}\n', 'projects.yml:1:11', 'one or more projects'],
    ['projets:\n  acme:\n    tokens: [x]\n', 'projects.yml:1:1', '"projets" is not known'],
    ['projects:\n  admin:\n    tokens: [sandbox_x]\n', 'projects.yml:2:3', "admin tokens' own"],
    [
      'projects:\n  acme:\n    tokens: [sandbox_x]\n    webhooks:\n      - url: ftp://x\n        secret: whsec_YWJj\n',
      'projects.yml:2:3',
      'no http(s) url',
    ],
  ])('refuses %j, naming the place and the problem', (text, place, problem) => {
    let error: unknown
    try {
      parseProjects(text, 'projects.yml')
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ProjectsFileError)
    expect((error as Error).message).toContain(place)
    expect((error as Error).message).toContain(problem)
  })

  it('the projects option is held to the same rules, one check for both: a token listed twice names its owners', () => {
    const twice = {
      projects: {
        acme: { tokens: ['sandbox_a'] },
        billing: { tokens: ['sandbox_b', 'sandbox_a'] },
      },
    }
    expect(() => createProjects(twice, 'the projects option')).toThrow(ProjectsFileError)
    expect(() => createProjects(twice, 'the projects option')).toThrow(
      "the projects option: billing: this token is already acme's",
    )
    // In a file, the same rule places the token: line 5, the second item of billing's list.
    const file =
      'projects:\n  acme:\n    tokens: [sandbox_a]\n  billing:\n    tokens: [sandbox_b, sandbox_a]\n'
    expect(() => parseProjects(file, 'projects.yml')).toThrow(
      "projects.yml:5:25  billing: this token is already acme's",
    )
  })

  it('a bad file stops `sendbox serve` with exit 1, naming the file, line and problem', async () => {
    const dir = await tempDir()
    const file = join(dir, 'projects.yml')
    await writeFile(file, 'projects:\n  acme:\n    tokens: []\n')
    const result = await runCli(['serve', '--port', '0', '--memory', '--projects', file], {
      env: { CI: '1' },
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${file}:3:13`)
    expect(result.stderr).toContain('tokens')
  })

  it("the banner's Webhooks line lists each project's webhooks beside --webhook's, never a secret; the Log line its format", async () => {
    const dir = await tempDir()
    const file = join(dir, 'projects.yml')
    await writeFile(file, FILE)
    const db = join(dir, 'messages.jsonl')
    const cli = await startCli(
      [
        'serve',
        '--port',
        '0',
        '--db',
        db,
        '--projects',
        file,
        '--webhook',
        'http://127.0.0.1:9/all',
      ],
      { cwd: dir },
    )
    try {
      const { stdout } = cli.output()
      const line = (name: string) => new RegExp(`^ {2}${name} +(.*)$`, 'm').exec(stdout)?.[1]
      expect(line('Webhooks')).toBe(
        "http://127.0.0.1:9/all (every project's), https://staging.acme.test/hooks/mail (acme's)",
      )
      expect(line('Log')).toBe(`${db}, format ${LOG_FORMAT}`)
      expect(stdout).not.toContain('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')
    } finally {
      await cli.stop()
    }
  })

  it('with --token or --inspector-password is a usage error (exit 2)', async () => {
    const dir = await tempDir()
    const file = join(dir, 'projects.yml')
    await writeFile(file, FILE)
    for (const extra of [
      ['--token', 'sandbox_x'],
      ['--inspector-password', 'pw'],
    ]) {
      const result = await runCli(['serve', '--memory', '--projects', file, ...extra], {
        env: { CI: '1' },
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('does not go with --projects')
    }
  })
})

describe('a sandbox with projects', () => {
  let sandbox: TestSandbox
  let everything: Receiver
  let acmeHook: Receiver
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

  beforeAll(async () => {
    everything = await startReceiver()
    acmeHook = await startReceiver()
    sandbox = await startTestSandbox(
      { 'welcome.liquid': 'Hi {{ name }}' },
      {
        webhook: everything.url,
        webhookSecret: 'whsec_c2VuZGJveC1ldmVyeXRoaW5nLXNlY3JldA==',
        projects: {
          projects: {
            acme: { tokens: ['sandbox_acme_ci'], webhooks: [{ url: acmeHook.url, secret }] },
            billing: { tokens: ['sandbox_billing_1'] },
          },
          admin: { tokens: ['sandbox_admin_5c1d'] },
        },
      },
    )
  })
  afterAll(async () => {
    await sandbox?.close()
    await everything?.close()
    await acmeHook?.close()
  })

  const welcome = (to: string) => ({
    template: 'welcome',
    from: 'Acme <hello@acme.test>',
    to,
    subject: 'Hi',
    templateVariables: { name: 'Ada' },
  })

  it("stores a message under its project's name, and sandbox.token is one it accepts", async () => {
    const sent = await sandbox.send(welcome('ada@example.com'), 'sandbox_billing_1')
    expect(sent.status).toBe(201)
    const { id } = (await sent.json()) as { id: string }
    const record = (await (
      await sandbox.api(`/_sandbox/api/messages/${id}`, { auth: 'sandbox_admin_5c1d' })
    ).json()) as { project: string; tokenHint: string }
    expect(record.project).toBe('billing')
    expect(JSON.stringify(record)).not.toContain('sandbox_billing_1')
    expect(sandbox.token).toBe('sandbox_acme_ci')
  })

  it("posts a project's events to its own webhooks, signed with its secret; --webhook gets every project's", async () => {
    const sent = await sandbox.send(welcome('hook@example.com'), 'sandbox_acme_ci')
    const { id } = (await sent.json()) as { id: string }
    await sandbox.send(welcome('other@example.com'), 'sandbox_billing_1')
    const own = await acmeHook.until((r) => r.some((x) => x.body.type === 'message.delivered'))
    expect(own.every((x) => x.body.data.project === 'acme')).toBe(true)
    const request = own.find((x) => x.body.data.id === id)!
    expect(() =>
      new Webhook(secret).verify(request.raw, request.headers as Record<string, string>),
    ).not.toThrow()
    const all = await everything.until((r) => new Set(r.map((x) => x.body.data.project)).size === 2)
    expect(new Set(all.map((x) => x.body.data.project))).toEqual(new Set(['acme', 'billing']))
  })

  it('signs the browser in with an HttpOnly, SameSite=Strict cookie, and out again', async () => {
    const bad = await sandbox.api('/_sandbox/api/session', {
      method: 'POST',
      auth: false,
      json: { token: 'sandbox_nope' },
    })
    expect(bad.status).toBe(401)
    expect((await errorOf(bad)).code).toBe('unauthorized')
    expect(bad.headers.get('set-cookie')).toBeNull()
    const signedIn = await sandbox.api('/_sandbox/api/session', {
      method: 'POST',
      auth: false,
      json: { token: 'sandbox_billing_1' },
    })
    expect(signedIn.status).toBe(200)
    expect(await signedIn.json()).toEqual({
      projects: true,
      signedIn: true,
      project: 'billing',
      admin: false,
    })
    const cookie = signedIn.headers.get('set-cookie')!
    expect(cookie).toMatch(/^sendbox_token=sandbox_billing_1;/)
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    expect(cookie).toMatch(/Path=\/_sandbox/)
    const session = cookie.split(';')[0]!
    const listed = await sandbox.api('/_sandbox/api/messages', {
      auth: false,
      headers: { cookie: session },
    })
    expect(listed.status).toBe(200)
    const page = (await listed.json()) as { messages: { project: string }[] }
    expect(page.messages.every((m) => m.project === 'billing')).toBe(true)
    const out = await sandbox.api('/_sandbox/api/session', {
      method: 'DELETE',
      auth: false,
      headers: { cookie: session },
    })
    expect(out.status).toBe(204)
    expect(out.headers.get('set-cookie')).toMatch(/sendbox_token=;.*Max-Age=0/i)
    const anonymous = (await (
      await sandbox.api('/_sandbox/api/session', { auth: false })
    ).json()) as { signedIn: boolean }
    expect(anonymous.signedIn).toBe(false)
  })

  it('connectSendbox takes the token (or SENDBOX_TOKEN), and sees its project only', async () => {
    await sandbox.send(welcome('kit@example.com'), 'sandbox_acme_ci')
    const acme = connectSendbox(sandbox.url, { token: 'sandbox_acme_ci' })
    // The token given, which an application configured from the client sends with.
    expect(acme.token).toBe('sandbox_acme_ci')
    const messages = await acme.messages()
    expect(messages.length).toBeGreaterThan(0)
    expect(messages.every((m) => m.project === 'acme')).toBe(true)
    process.env.SENDBOX_TOKEN = 'sandbox_billing_1'
    try {
      const billing = connectSendbox(sandbox.url)
      expect(billing.token).toBe('sandbox_billing_1')
      expect((await billing.messages()).every((m) => m.project === 'billing')).toBe(true)
    } finally {
      delete process.env.SENDBOX_TOKEN
    }
    await expect(connectSendbox(sandbox.url).messages()).rejects.toThrow(/token/)
  })

  it('fixture writes and snapshot accepts take an admin token', async () => {
    const save = (token: string) =>
      sandbox.api('/_sandbox/api/templates/welcome/fixtures', {
        method: 'POST',
        auth: token,
        json: { name: 'ada', variables: { name: 'Ada' } },
      })
    const refused = await save('sandbox_acme_ci')
    expect(refused.status).toBe(403)
    expect((await errorOf(refused)).code).toBe('admin_token_required')
    expect((await save('sandbox_admin_5c1d')).status).toBe(201)
  })
})

describe('sendbox mcp on a sandbox with projects', () => {
  it('reads SENDBOX_TOKEN, and lists that project’s messages only', async () => {
    const sandbox = await startTestSandbox(
      { 'welcome.liquid': 'Hi {{ name }}' },
      {
        projects: {
          projects: {
            acme: { tokens: ['sandbox_acme_ci'] },
            billing: { tokens: ['sandbox_billing_1'] },
          },
        },
      },
    )
    try {
      for (const [token, subject] of [
        ['sandbox_acme_ci', 'for acme'],
        ['sandbox_billing_1', 'for billing'],
      ])
        await sandbox.send(
          {
            template: 'welcome',
            from: 'a@acme.test',
            to: 'ada@example.com',
            subject,
            templateVariables: { name: 'A' },
          },
          token,
        )
      const mcp = await connectMcp(['--url', sandbox.url], {
        env: { SENDBOX_TOKEN: 'sandbox_acme_ci' },
      })
      try {
        const listed = textOf(await mcp.call('list_messages', {}))
        expect(listed).toContain('for acme')
        expect(listed).not.toContain('for billing')
      } finally {
        await mcp.close()
      }
      const anonymous = await connectMcp(['--url', sandbox.url])
      try {
        const refused = await anonymous.call('list_messages', {})
        expect(refused.isError).toBe(true)
        expect(textOf(refused)).toContain('token')
      } finally {
        await anonymous.close()
      }
    } finally {
      await sandbox.close()
    }
  })
})
