import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runCli } from './helpers/cli.js'
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
  it('an error (a localhost link) fails the check, naming the template and the rendered line', async () => {
    const { dir, args } = await project({
      'templates/local.liquid': page(
        '<p>Hello {{ name }}, confirm your address to finish signing up.</p>\n<a href="http://localhost:3000/confirm">Confirm</a>',
      ),
      'fixtures/local.json': '{"name":"Ada"}',
    })
    const result = await runCli(args, { cwd: dir })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /^templates\/local\.liquid:1:1 {2}localhost_link {2}.*rendered HTML line 5/m,
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
