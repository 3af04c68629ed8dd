import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { codeOf, raw } from '../helpers/http.js'
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/sandbox.js'
import { afterTemplateEvents } from '../helpers/sse.js'

/**
 * What the inspector writes stays small and stays home: fixture cases (owner-only, inside the
 * fixtures folder, capped, read back as saved) and armed faults (capped, short matches).
 */

let sandbox: TestSandbox
let fixtures: string
beforeAll(async () => {
  sandbox = await startTestSandbox({
    'welcome.liquid': 'Hi {{ name }}',
    'receipt.liquid': 'Order {{ id }}',
  })
  fixtures = join(sandbox.dir, 'fixtures')
})
afterAll(() => sandbox?.close())

const post = (path: string, body: unknown) =>
  raw(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
const saveCase = (slug: string, body: unknown) =>
  post(`/_sandbox/api/templates/${slug}/fixtures`, body)
const mode = async (path: string) => (await stat(path)).mode & 0o777

/** The names of a template's fixture cases, as the inspector lists them. */
async function casesOf(slug: string): Promise<string[]> {
  const detail = (await (await fetch(`${sandbox.url}/_sandbox/api/templates/${slug}`)).json()) as {
    fixtures: Array<{ name: string }>
  }
  return detail.fixtures.map((f) => f.name)
}

/** Runs `change`; resolves once the event stream says the slug's fixtures were reloaded. */
const fixturesReloaded = (slug: string, change: () => Promise<unknown>) =>
  afterTemplateEvents(sandbox.url, change, { slug, source: 'fixture' })

describe('saving a fixture case', () => {
  it('writes the file 0600 in a folder it creates 0700, and answers with a relative path', async () => {
    let response!: Awaited<ReturnType<typeof saveCase>>
    await fixturesReloaded('welcome', async () => {
      response = await saveCase('welcome', { name: 'ada', variables: { name: 'Ada' } })
    })
    expect(response.status).toBe(201)
    expect(response.json).toEqual({ name: 'ada', file: 'fixtures/welcome/ada.json' })
    expect(await mode(join(fixtures, 'welcome', 'ada.json'))).toBe(0o600)
    expect(await mode(join(fixtures, 'welcome'))).toBe(0o700)
    expect(await readFile(join(fixtures, 'welcome', 'ada.json'), 'utf8')).toBe(
      '{\n  "name": "Ada"\n}\n',
    )
    expect(await casesOf('welcome')).toContain('ada')
  })

  it('a 409 names the file relative to the project, never by its absolute path', async () => {
    const again = await saveCase('welcome', { name: 'ada', variables: { name: 'Ada' } })
    expect(again.status).toBe(409)
    expect(codeOf(again)).toBe('fixture_exists')
    expect(again.body).toContain('fixtures/welcome/ada.json')
    expect(again.body).not.toContain(sandbox.dir)
    // An overwrite is 0600 too, and replaces the file rather than writing through it.
    const overwritten = await saveCase('welcome', {
      name: 'ada',
      variables: { name: 'Ada 2' },
      overwrite: true,
    })
    expect(overwritten.status).toBe(201)
    expect(overwritten.body).not.toContain(sandbox.dir)
    expect(await mode(join(fixtures, 'welcome', 'ada.json'))).toBe(0o600)
    expect(await readdir(join(fixtures, 'welcome'))).toEqual(['ada.json'])
  })

  it('a fixture_invalid answer does not carry the absolute path either', async () => {
    await fixturesReloaded('receipt', async () => {
      await mkdir(join(fixtures, 'receipt'), { recursive: true })
      await writeFile(join(fixtures, 'receipt', 'broken.json'), '[1]')
    })
    const response = await raw(`${sandbox.url}/_sandbox/api/templates/receipt/render?case=broken`)
    expect(codeOf(response)).toBe('fixture_invalid')
    expect(response.body).not.toContain(sandbox.dir)
  })

  it('a case named .hidden is refused (it would be saved and never loaded)', async () => {
    for (const name of ['.hidden', '.', '..', 'default', '../x', 'a/b']) {
      const response = await saveCase('welcome', { name, variables: {} })
      expect(response.status, name).toBe(422)
      expect(codeOf(response)).toBe('validation_failed')
    }
    expect(await readdir(join(fixtures, 'welcome'))).toEqual(['ada.json'])
  })

  it('does not follow a case folder that is a symlink out of the fixtures folder', async () => {
    const outside = await tempDir('sendbox-outside-')
    const evil = await startTestSandbox({ 'order.liquid': 'Order {{ id }}' })
    try {
      await mkdir(join(evil.dir, 'fixtures'), { recursive: true })
      await symlink(outside, join(evil.dir, 'fixtures', 'order'))
      const response = await raw(`${evil.url}/_sandbox/api/templates/order/fixtures`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'pwned', variables: { id: 1 } }),
      })
      expect(response.status).toBe(403)
      expect(codeOf(response)).toBe('fixture_outside')
      expect(response.body).not.toContain(outside)
      expect(await readdir(outside)).toEqual([])
    } finally {
      await evil.close()
    }
  })

  it('does not write through a symlinked case file, new or overwritten', async () => {
    const outside = await tempDir('sendbox-outside-')
    const target = join(outside, 'target.json')
    await writeFile(target, '{"untouched":true}')
    await mkdir(join(fixtures, 'receipt'), { recursive: true })
    await symlink(target, join(fixtures, 'receipt', 'link.json'))
    expect((await saveCase('receipt', { name: 'link', variables: { id: 1 } })).status).toBe(409)
    expect(
      (await saveCase('receipt', { name: 'link', variables: { id: 2 }, overwrite: true })).status,
    ).toBe(201)
    expect(await readFile(target, 'utf8')).toBe('{"untouched":true}')
    expect((await lstat(join(fixtures, 'receipt', 'link.json'))).isSymbolicLink()).toBe(false)
  })

  it('is pretty-printed only while small, compact when deep, and capped at 256 KiB', async () => {
    // 64 levels of arrays holding 8 KB: pretty-printed that is ~70 characters of indentation per value.
    let deep: unknown = Array.from({ length: 2000 }, () => 1)
    for (let i = 0; i < 60; i++) deep = [deep]
    const response = await saveCase('receipt', { name: 'deep', variables: { deep } })
    expect(response.status).toBe(201)
    const text = await readFile(join(fixtures, 'receipt', 'deep.json'), 'utf8')
    expect(text).toBe(`${JSON.stringify({ deep })}\n`)

    const big = await saveCase('receipt', {
      name: 'big',
      variables: { filler: 'x'.repeat(300 * 1024) },
    })
    expect(big.status).toBe(413)
    expect(codeOf(big)).toBe('fixture_too_large')
    expect(await readdir(join(fixtures, 'receipt'))).not.toContain('big.json')
  })
})

describe('armed faults are bounded', () => {
  beforeEach(async () => {
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
  })

  it('at most 100 are armed: the next is 409 too_many_faults', async () => {
    for (let i = 0; i < 100; i++)
      expect(
        (await post('/_sandbox/api/faults', { status: 503, match: { to: `user${i}@` } })).status,
      ).toBe(201)
    const over = await post('/_sandbox/api/faults', { status: 503 })
    expect(over.status).toBe(409)
    expect(codeOf(over)).toBe('too_many_faults')
    await expect(sandbox.fail({ status: 503 })).rejects.toThrow('100 faults')
    expect(
      ((await (await fetch(`${sandbox.url}/_sandbox/api/faults`)).json()) as { faults: unknown[] })
        .faults,
    ).toHaveLength(100)
    // Disarming makes room again.
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
    expect((await post('/_sandbox/api/faults', { status: 503 })).status).toBe(201)
  })

  it('match strings are short: to at most 320 characters, template at most 128', async () => {
    expect(
      (
        await post('/_sandbox/api/faults', {
          status: 503,
          match: { to: 'a'.repeat(320), template: 't'.repeat(128) },
        })
      ).status,
    ).toBe(201)
    const long = await post('/_sandbox/api/faults', {
      status: 503,
      match: { to: 'a'.repeat(321), template: 't'.repeat(129) },
    })
    expect(long.status).toBe(422)
    expect(
      (long.json as { error: { details: Array<{ field: string; code: string }> } }).error.details,
    ).toEqual([
      expect.objectContaining({ field: 'match.template', code: 'too_long' }),
      expect.objectContaining({ field: 'match.to', code: 'too_long' }),
    ])
  })
})
