import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ParsedHtml } from '../../src/checks/html.js'
import type { CheckReport, Finding } from '../../src/checks/types.js'
import { check } from '../../src/cli/check.js'
import { runCli } from '../helpers/cli.js'
import { connectMcp, type McpSession } from '../helpers/mcp.js'
import { startTestSandbox, type TestSandbox, tempDir, writeFiles } from '../helpers/sandbox.js'

/**
 * A check that throws on one message is a `check_failed` finding on that message, everywhere the
 * checks show (the API, the MCP tool over it, `sendbox check`), and every other check and every
 * other template still runs. The accessibility check is made to throw on an email that asks for
 * it (`data-throw`): a stand-in for a bug nobody has found yet.
 */
vi.mock('../../src/checks/accessibility.js', async (original) => {
  const real = await original<typeof import('../../src/checks/accessibility.js')>()
  return {
    ...real,
    checkAccessibility: (parsed: ParsedHtml) => {
      if (parsed.elements.some((el) => el.attribs['data-throw'] !== undefined))
        throw new TypeError('forced for the test')
      return real.checkAccessibility(parsed)
    },
  }
})

const PAGE = (body: string) =>
  `<!doctype html>\n<html><head><title>Hi</title></head>\n<body>\n${body}\n</body></html>`
const TEMPLATES = {
  'boom.liquid': PAGE(
    '<p data-throw>Hello {{ name }}, your order shipped today.</p>\n<img src="http://cdn.acme.test/a.png">',
  ),
  'calm.liquid': PAGE('<p>Hello {{ name }}, your order shipped today.</p>\n<img src="a.png">'),
}
const FIXTURES = { 'boom.json': '{"name":"Ada"}', 'calm.json': '{"name":"Ada"}' }

/** The boom email's report: the accessibility check failed, the others ran. */
function expectBoom(findings: Finding[]): void {
  const failed = findings.filter((f) => f.code === 'check_failed')
  expect(failed).toEqual([
    expect.objectContaining({
      check: 'accessibility',
      severity: 'warning',
      message: expect.stringMatching(/threw TypeError: forced for the test/),
    }),
  ])
  // Images, links, text and clients ran on it all the same.
  expect(findings.map((f) => f.code)).toEqual(
    expect.arrayContaining(['insecure_image', 'image_missing_size', 'missing_preheader']),
  )
}

describe('a check that throws, through the server', () => {
  let sandbox: TestSandbox
  let mcp: McpSession
  beforeAll(async () => {
    sandbox = await startTestSandbox(TEMPLATES, {}, FIXTURES)
    mcp = await connectMcp(['--url', sandbox.url])
  })
  afterAll(async () => {
    await mcp?.close()
    await sandbox?.close()
  })
  const json = async (path: string, init: RequestInit = {}) => {
    const response = await sandbox.api(`/_sandbox/api${path}`, { ...init, auth: false })
    expect(response.status, path).toBe(200)
    return (await response.json()) as CheckReport
  }

  it('GET …/messages/:id/checks, the template checks and the MCP tool: check_failed, the rest checked', async () => {
    const sent = await sandbox.send({
      template: 'boom',
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables: { name: 'Ada' },
    })
    expect(sent.status).toBe(201)
    const { id } = (await sent.json()) as { id: string }
    expectBoom((await json(`/messages/${id}/checks`)).findings)
    expectBoom((await json('/templates/boom/checks')).findings)
    const tool = await mcp.call('check_template', { slug: 'boom', variables: { name: 'Ada' } })
    expect(tool.isError).toBeFalsy()
    expectBoom((tool.structuredContent as unknown as CheckReport).findings)
    // The other template is untouched: its accessibility findings are there.
    const calm = await json('/templates/calm/checks')
    expect(calm.findings.map((f) => f.code)).toContain('img_missing_alt')
    expect(calm.findings.map((f) => f.code)).not.toContain('check_failed')
  })
})

describe('a check that throws, in sendbox check', () => {
  it('is a warning on that template; the other template is checked too', async () => {
    const dir = await tempDir('sendbox-check-failed-')
    await writeFiles(dir, {
      ...Object.fromEntries(Object.entries(TEMPLATES).map(([k, v]) => [`templates/${k}`, v])),
      ...Object.fromEntries(Object.entries(FIXTURES).map(([k, v]) => [`fixtures/${k}`, v])),
    })
    let out = ''
    const write = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true))
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      const args = ['--templates', join(dir, 'templates'), '--fixtures', join(dir, 'fixtures')]
      // Warnings only (check_failed is one): the check passes.
      expect(await check([...args, '--json'], {}, false)).toBe(0)
    } finally {
      write.mockRestore()
      stderr.mockRestore()
    }
    const { problems } = JSON.parse(out) as { problems: Array<{ file: string; code: string }> }
    const codes = (name: string) => problems.filter((p) => p.file.endsWith(name)).map((p) => p.code)
    expect(codes('boom.liquid')).toEqual(expect.arrayContaining(['check_failed', 'insecure_image']))
    expect(codes('calm.liquid')).toEqual(expect.arrayContaining(['img_missing_alt']))
  })
})

describe('sendbox check on a feature caniemail does not know for a client', () => {
  it('checks that template and the others (it used to print a stack trace and exit 1)', async () => {
    const dir = await tempDir('sendbox-check-unknown-')
    await writeFiles(dir, {
      'templates/layout.liquid': PAGE(
        '<table role="presentation" style="table-layout:fixed"><tr><td>Hello {{ name }}, your order shipped.</td></tr></table>',
      ),
      'templates/other.liquid': PAGE(
        '<p>Hello {{ name }}, your order shipped.</p><img src="a.png">',
      ),
      'fixtures/layout.json': '{"name":"Ada"}',
      'fixtures/other.json': '{"name":"Ada"}',
    })
    const result = await runCli(
      [
        'check',
        '--json',
        '--templates',
        join(dir, 'templates'),
        '--fixtures',
        join(dir, 'fixtures'),
      ],
      { cwd: dir },
    )
    expect(result.stderr).not.toContain('not found on')
    const { problems } = JSON.parse(result.stdout) as { problems: Array<{ code: string }> }
    expect(problems.map((p) => p.code)).toContain('img_missing_alt')
    expect(problems.map((p) => p.code)).not.toContain('check_failed')
  })
})
