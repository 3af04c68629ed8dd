import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, runCli } from './helpers/cli.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'

const dirs: string[] = []
/** A project folder with `templates/` and `fixtures/` from `files`. */
async function project(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('sendbox-check-')
  dirs.push(dir)
  await writeFiles(dir, files)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

// These cases are about templates and fixtures; the email checks have their own tests (check-email.test.ts).
const check = (cwd: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  runCli(['check', '--no-email-checks', ...args], { cwd, env })
const lines = (text: string) => text.split('\n').filter(Boolean)

describe('sendbox check', () => {
  it('the example templates are clean: exit 0, a summary on stderr, nothing on stdout', async () => {
    const result = await runCli(['check', '--templates', 'templates', '--fixtures', 'fixtures'])
    expect(result.stderr.trim()).toBe('✔ 3 templates, 4 cases: no problems')
    expect(result.stdout).toBe('')
    expect(result.code).toBe(0)
  })

  it('defaults to ./templates and ./fixtures, like serve', async () => {
    const result = await runCli(['check'])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('3 templates, 4 cases')
  })

  it('a template that does not parse: file:line:column  template_invalid  message, exit 1', async () => {
    const dir = await project({
      'templates/ok.liquid': '---\nvariables:\n  name: { example: Ada }\n---\nHi {{ name }}',
      'templates/broken.liquid':
        '---\ndescription: Broken\n---\n<p>Hello</p>\n<p>{% if name %}</p>\n',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(lines(result.stdout)).toHaveLength(1)
    expect(result.stdout).toMatch(/^templates\/broken\.liquid:5:4 {2}template_invalid {2}\S.*$/m)
    expect(result.stderr.trim()).toBe('✖ 1 problem in 1 template')
  })

  it('a broken partial is reported at the partial, naming the template that uses it', async () => {
    const dir = await project({
      'templates/welcome.liquid':
        '---\nvariables:\n  name: { example: Ada }\n---\n{% render "partials/footer" %}Hi {{ name }}',
      'templates/partials/footer.liquid': '<footer>\n{% if %}\n</footer>',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^templates\/partials\/footer\.liquid:2:\d+ {2}template_invalid {2}.*"welcome"/m,
    )
  })

  it('every fixture case is rendered: one missing_variables line per variable, at the fixture', async () => {
    const dir = await project({
      'templates/receipt.liquid':
        '<p>{{ customer.name }} bought {{ order.id }} for {{ order.total }}</p>',
      'fixtures/receipt/default.json':
        '{ "customer": { "name": "Ada" }, "order": { "id": "1", "total": "2" } }',
      'fixtures/receipt/partial.json': '{ "customer": { "name": "Ada" } }',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(lines(result.stdout)).toEqual([
      'fixtures/receipt/partial.json:1:1  missing_variables  "order.id" is required by the template "receipt" but the fixture case "partial" does not set it.',
      'fixtures/receipt/partial.json:1:1  missing_variables  "order.total" is required by the template "receipt" but the fixture case "partial" does not set it.',
    ])
    expect(result.stderr.trim()).toBe('✖ 2 problems in 1 template')
  })

  it('a fixture that is not valid JSON is fixture_invalid at its file, line and column', async () => {
    const dir = await project({
      'templates/welcome.liquid': 'Hi {{ name }}',
      'fixtures/welcome.json': '{\n  "name": "Ada",\n}\n',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^fixtures\/welcome\.json:3:1 {2}fixture_invalid {2}Invalid JSON/m,
    )
  })

  it('a render that fails is render_failed at the template file:line:column', async () => {
    const dir = await project({
      'templates/runaway.liquid':
        '<p>Counting</p>\n{% for i in (1..100000000) %}{{ i }}{% endfor %}',
      'fixtures/runaway.json': '{}',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^templates\/runaway\.liquid:2:\d+ {2}render_failed {2}.*"runaway"/m,
    )
  })

  it('without a fixture, every required variable must be declared in front matter (undeclared_variable at its first use)', async () => {
    const dir = await project({
      'templates/reset.liquid':
        '---\ndescription: Reset\nvariables:\n  name: { example: Ada }\n---\n<p>Hi {{ name }}</p>\n<p><a href="{{ resetUrl }}">Reset</a> {{ order.id }}</p>',
    })
    const result = await check(dir)
    expect(result.code).toBe(1)
    const out = lines(result.stdout)
    expect(out).toHaveLength(2)
    expect(out[0]).toMatch(
      /^templates\/reset\.liquid:7:\d+ {2}undeclared_variable {2}"order\.id" is required/,
    )
    expect(out[1]).toMatch(
      /^templates\/reset\.liquid:7:16 {2}undeclared_variable {2}"resetUrl" is required/,
    )
  })

  it('without a fixture, declared examples are rendered when they cover every required variable', async () => {
    const dir = await project({
      'templates/good.liquid':
        '---\nvariables:\n  name: { example: Ada }\n  coupon: { required: false }\n---\nHi {{ name }} {{ coupon }}',
      'templates/thin.liquid':
        '---\nvariables:\n  order: { example: { total: 3 } }\n---\nOrder {{ order.id }}: {{ order.total }}',
      'templates/documented.liquid':
        '---\nvariables:\n  name: { description: no example }\n---\nHi {{ name }}',
    })
    const result = await check(dir)
    expect(lines(result.stdout)).toEqual([
      'templates/thin.liquid:1:1  missing_variables  "order.id" is required by the template "thin" but the front-matter examples do not set it.',
    ])
    expect(result.code).toBe(1)
  })

  it('a fixture variable the template never uses is a warning: reported, exit 0', async () => {
    const dir = await project({
      'templates/welcome.liquid': 'Hi {{ name }}',
      'fixtures/welcome.json': '{ "name": "Ada", "nmae": "typo" }',
    })
    const result = await check(dir)
    expect(result.code).toBe(0)
    expect(lines(result.stdout)).toEqual([
      'fixtures/welcome.json:1:1  unused_variable  warning: "nmae" is set by the fixture case "default" but the template "welcome" never uses it.',
    ])
    expect(result.stderr.trim()).toBe('✔ 1 template, 1 case: no errors, 1 warning')
  })

  it('--json prints { problems, templates, cases } on stdout', async () => {
    const dir = await project({
      'templates/welcome.liquid': 'Hi {{ name }}',
      'templates/broken.liquid': 'Hi {{ name ',
      'fixtures/welcome.json': '{ "name": "Ada" }',
    })
    const result = await check(dir, ['--json'])
    expect(result.code).toBe(1)
    const report = JSON.parse(result.stdout)
    expect(report).toEqual({
      problems: [
        {
          file: 'templates/broken.liquid',
          line: 1,
          column: expect.any(Number),
          code: 'template_invalid',
          message: expect.any(String),
          severity: 'error',
        },
      ],
      templates: 2,
      cases: 1,
    })
    expect(result.stderr).toContain('✖ 1 problem in 1 template')
  })

  it('takes the folders from --templates/--fixtures or SENDBOX_TEMPLATES/SENDBOX_FIXTURES; paths are relative to the working folder', async () => {
    const dir = await project({
      'mail/views/welcome.liquid': 'Hi {{ name }}',
      'mail/samples/welcome.json': '{}',
    })
    const byFlag = await check(dir, ['--templates', 'mail/views', '--fixtures', 'mail/samples'])
    expect(byFlag.stdout).toContain('mail/samples/welcome.json:1:1  missing_variables  "name"')
    const byEnv = await check(join(dir, 'mail'), [], {
      SENDBOX_TEMPLATES: 'views',
      SENDBOX_FIXTURES: 'samples',
    })
    expect(byEnv.stdout).toContain('samples/welcome.json:1:1  missing_variables  "name"')
    expect(byEnv.code).toBe(1)
  })

  it('an empty templates folder fails (a wrong --templates must not pass CI)', async () => {
    const dir = await project({ 'templates/.keep': '' })
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^templates:1:1 {2}no_templates {2}/m)
  })

  it.each([[['--prot']], [['--templates', '/definitely/not/here']], [['extra-argument']]])(
    'bad usage %j is exit 2',
    async (args) => {
      const result = await runCli(['check', ...args])
      expect(result.code).toBe(2)
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
    },
  )

  it('--help lists its flags', async () => {
    const result = await runCli(['check', '--help'])
    expect(result.code).toBe(0)
    for (const flag of ['--templates', '--fixtures', '--json', 'SENDBOX_TEMPLATES'])
      expect(result.stdout).toContain(flag)
  })
})

describe('sendbox render', () => {
  let dir: string
  beforeAll(async () => {
    dir = await project({
      'templates/plain.liquid':
        '---\nvariables:\n  name: { example: Example }\n---\n<p>Hi {{ name }}</p>',
      'templates/broken.liquid': '<p>{{ name </p>',
      'vars.json': '{ "name": "From file" }',
      'empty.json': '{}',
      'bad.json': '{ nope',
    })
  })

  it('prints the HTML of the first fixture case by default', async () => {
    const result = await runCli(['render', 'welcome'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^<!doctype html>/i)
    expect(result.stdout).toContain('Welcome, Ada!')
    expect(result.stderr).toBe('')
  })

  it('--text prints the plain-text version', async () => {
    const result = await runCli(['render', 'welcome', '--text'])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Welcome, Ada!')
    expect(result.stdout).not.toContain('<')
  })

  it('--case picks a fixture case', async () => {
    const result = await runCli(['render', 'order-receipt', '--case', 'big-order', '--text'])
    expect(result.code).toBe(0)
    const small = await runCli(['render', 'order-receipt', '--text'])
    expect(result.stdout).not.toBe(small.stdout)
  })

  it('--vars reads a JSON file of variables; without fixtures it falls back to front-matter examples', async () => {
    const fromFile = await runCli(['render', 'plain', '--vars', 'vars.json'], { cwd: dir })
    expect(fromFile.stdout).toBe('<p>Hi From file</p>\n')
    const fromExamples = await runCli(['render', 'plain'], { cwd: dir })
    expect(fromExamples.stdout).toBe('<p>Hi Example</p>\n')
  })

  it.each([
    [['welcom'], 'template_not_found', /Did you mean "welcome"\?/],
    [
      ['welcome', '--case', 'nope'],
      'fixture_not_found',
      /no fixture case "nope"; it has "default"/,
    ],
    [['broken'], 'template_invalid', /broken\.liquid:1:\d+/],
    [['plain', '--vars', 'empty.json'], 'missing_variables', /needs name/],
    [['plain', '--vars', 'bad.json'], 'invalid_json', /bad\.json is not valid JSON/],
  ])('%j is exit 1 with %s on stderr', async (args, code, pattern) => {
    // The welcome cases run in the repository (its templates and fixtures), the others in the temp project.
    const result = await runCli(['render', ...args], {
      cwd: args[0]!.startsWith('welcom') ? ROOT : dir,
    })
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`sendbox render: ${code}: `)
    expect(result.stderr).toMatch(pattern)
  })

  it.each([
    [[]],
    [['welcome', '--vars', 'vars.json', '--case', 'default']],
    [['welcome', '--txt']],
    [['welcome', 'again']],
    [['plain', '--vars', 'missing.json']],
  ])('bad usage %j is exit 2', async (args) => {
    const result = await runCli(['render', ...args], { cwd: dir })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('--help lists its flags', async () => {
    const result = await runCli(['render', '--help'])
    expect(result.code).toBe(0)
    for (const flag of ['--vars', '--case', '--text', '--templates', '--fixtures'])
      expect(result.stdout).toContain(flag)
  })
})
