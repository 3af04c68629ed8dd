import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runCli } from './helpers/cli.js'
import { fencedBlocks } from './helpers/docs.js'
import { tempDir, writeFiles } from './helpers/sandbox.js'

const PRE = '<div style="display:none;max-height:0;overflow:hidden">Preheader text</div>'
const page = (body: string) => `<!doctype html>\n<html><body>\n${PRE}\n${body}\n</body></html>`

async function project(files: Record<string, string>) {
  const dir = await tempDir('sendbox-check-email-')
  await writeFiles(dir, files)
  return {
    dir,
    args: ['check', '--templates', join(dir, 'templates'), '--fixtures', join(dir, 'fixtures')],
  }
}

describe('sendbox check runs the email checks', () => {
  it('an error (a localhost link) fails the check, at its tag in the template, naming the rendered line', async () => {
    const { dir, args } = await project({
      'templates/local.liquid': page(
        '<p>Hello {{ name }}, confirm your address to finish signing up.</p>\n<a href="http://localhost:3000/confirm">Confirm</a>',
      ),
      'fixtures/local.json': '{"name":"Ada"}',
    })
    const result = await runCli(args, { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^templates\/local\.liquid:5:1 {2}localhost_link {2}.*rendered HTML line 5, column 1/m,
    )
  })

  it('a warning (an image without alt) is reported once, and the check passes', async () => {
    const { dir, args } = await project({
      'templates/img.liquid': page(
        '<p>Hello {{ name }}, here is the picture you asked for today.</p>\n<img src="https://cdn.acme.test/a.png" width="10" height="10">',
      ),
      'fixtures/img/one.json': '{"name":"Ada"}',
      'fixtures/img/two.json': '{"name":"Bob"}',
    })
    const result = await runCli(args, { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout.match(/img_missing_alt/g)).toHaveLength(1)
    expect(result.stdout).toContain('warning')
  })

  it('an accessibility finding points at its tag in the template or the layout, as a warning', async () => {
    const { dir, args } = await project({
      'templates/layouts/base.liquid':
        '<!doctype html>\n<html>\n<head><title>{{ title }}</title></head>\n<body>\n{% block content %}{% endblock %}\n</body>\n</html>',
      'templates/hero.liquid':
        '---\ndescription: A picture\n---\n{% layout "layouts/base", title: "Hi" %}\n{% block content %}\n<div style="display:none;max-height:0;overflow:hidden">Preheader text</div>\n<p>Hello {{ name }}, here is the picture you asked for today.</p>\n<img src="https://cdn.acme.test/hero.png" width="10" height="10">\n<a href="{{ url }}"></a>\n{% endblock %}',
      'fixtures/hero.json': '{"name":"Ada","url":"https://acme.test/x"}',
    })
    const result = await runCli(args, { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(
      /^templates\/layouts\/base\.liquid:2:1 {2}missing_lang {2}warning: .*rendered HTML line 2, column 1/m,
    )
    expect(result.stdout).toMatch(
      /^templates\/hero\.liquid:8:1 {2}img_missing_alt {2}warning: .*rendered HTML line \d+, column 1\) Add alt=/m,
    )
    // A tag with a variable in it renders unlike its source: the template, and the rendered place.
    expect(result.stdout).toMatch(
      /^templates\/hero\.liquid:1:1 {2}link_missing_text {2}warning: .*rendered HTML line \d+, column 1/m,
    )

    const strict = await runCli([...args, '--fail-on-accessibility'], { cwd: dir })
    expect(strict.code).toBe(1)
    expect(strict.stdout).toMatch(/^templates\/hero\.liquid:8:1 {2}img_missing_alt {2}An image/m)
    const byEnv = await runCli(args, { cwd: dir, env: { SENDBOX_FAIL_ON_ACCESSIBILITY: 'true' } })
    expect(byEnv.code).toBe(1)
    const bad = await runCli(args, { cwd: dir, env: { SENDBOX_FAIL_ON_ACCESSIBILITY: 'maybe' } })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('SENDBOX_FAIL_ON_ACCESSIBILITY must be true or false')
  })

  it('docs/checks.md: the template and the output of --fail-on-accessibility, as written', async () => {
    const blocks = fencedBlocks(await readFile(join(ROOT, 'docs/checks.md'), 'utf8'), 'checks.md')
    const template = blocks.find((b) => b.lang === 'html')!.body
    const [command, ...output] = blocks
      .find((b) => b.lang === 'text' && b.body.startsWith('$ npx sendbox check'))!
      .body.trimEnd()
      .split('\n')
    const { dir, args } = await project({ 'templates/shipped.liquid': template })
    const flags = command!.replace('$ npx sendbox check', '').trim().split(' ')
    const strict = await runCli([...args, ...flags], { cwd: dir })
    expect(strict.code).toBe(1)
    expect(`${strict.stdout}${strict.stderr}`.trimEnd().split('\n')).toEqual(output)
    const lenient = await runCli(args, { cwd: dir })
    expect(lenient.code).toBe(0)
    expect(lenient.stdout.split('\n').filter((l) => l.includes('  warning: '))).toHaveLength(4)
  })

  it('--no-email-checks skips them', async () => {
    const { dir, args } = await project({
      'templates/local.liquid': page(
        '<p>Hello {{ name }}, confirm your address to finish signing up.</p><a href="http://localhost:3000/x">x</a>',
      ),
      'fixtures/local.json': '{"name":"Ada"}',
    })
    const result = await runCli([...args, '--no-email-checks'], { cwd: dir })
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain('localhost_link')
  })

  it('the example templates come out clean', async () => {
    const result = await runCli(['check', '--templates', 'templates', '--fixtures', 'fixtures'], {
      cwd: ROOT,
    })
    expect(result.stdout).toBe('')
    expect(result.code).toBe(0)
  })
})
