import { cp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tempDir, writeFiles } from '../helpers/sandbox.js'

/**
 * `sendbox check` and the snapshot folder (docs/snapshots.md#in-ci): compared when it exists, written when a
 * case has none (snapshot_missing under CI), snapshot_changed at the first differing line with a
 * diff under it, snapshot_obsolete, and -u. Each test runs the CLI in a project folder of its own.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const PROJECT = {
  'templates/welcome.liquid':
    '---\nvariables:\n  name: { example: Ada }\n---\n<html><body>\n<h1>Welcome, {{ name }}!</h1>\n<p>Glad you are here.</p>\n</body></html>\n',
  'templates/receipt.liquid': '<p>Order {{ order.id }} for {{ order.total }}</p>\n',
  'fixtures/receipt/default.json': '{ "order": { "id": "1", "total": "2.00" } }',
  'fixtures/receipt/big.json': '{ "order": { "id": "2", "total": "900.00" } }',
}

async function project(files: Record<string, string> = PROJECT): Promise<string> {
  const dir = await tempDir('sendbox-snap-check-')
  dirs.push(dir)
  await writeFiles(dir, files)
  return dir
}

/** `sendbox check` without the email checks (they have tests of their own), not under CI unless asked. */
const check = (cwd: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  runCli(['check', '--no-email-checks', ...args], { cwd, env: { CI: '', ...env } })

const lines = (text: string) => text.split('\n').filter(Boolean)
const SNAPSHOT_FILES = [
  'receipt/big.html',
  'receipt/big.txt',
  'receipt/default.html',
  'receipt/default.txt',
  'welcome/default.html',
  'welcome/default.txt',
]

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort()
}

describe('sendbox check and snapshots', () => {
  it('without a snapshot folder it compares nothing and writes nothing', async () => {
    const dir = await project()
    const result = await check(dir)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('')
    await expect(stat(join(dir, 'snapshots'))).rejects.toThrow()
  })

  it('a folder without snapshots: each case is written, named, owner-only; exit 0', async () => {
    const dir = await project({ ...PROJECT, 'snapshots/.keep': '' })
    const result = await check(dir)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('')
    for (const file of SNAPSHOT_FILES) expect(result.stderr).toContain(`written  snapshots/${file}`)
    expect((await filesUnder(join(dir, 'snapshots'))).filter((f) => f !== '.keep')).toEqual(
      SNAPSHOT_FILES,
    )
    expect((await stat(join(dir, 'snapshots/welcome/default.html'))).mode & 0o777).toBe(0o600)
    expect((await stat(join(dir, 'snapshots/welcome'))).mode & 0o777).toBe(0o700)
    expect(await readFile(join(dir, 'snapshots/welcome/default.txt'), 'utf8')).toBe(
      'Welcome, Ada!\n\nGlad you are here.\n',
    )
    // Written once, they pass: the same render gives the same bytes.
    const again = await check(dir)
    expect(again.code, again.stdout).toBe(0)
    expect(again.stderr).not.toContain('written')
  })

  it('under CI a case without a snapshot is snapshot_missing (one line per case), nothing is written; exit 1', async () => {
    const dir = await project({ ...PROJECT, 'snapshots/.keep': '' })
    const result = await check(dir, [], { CI: 'true' })
    expect(result.code).toBe(1)
    expect(lines(result.stdout)).toEqual([
      expect.stringMatching(
        /^snapshots\/receipt\/default\.html:1:1 {2}snapshot_missing {2}There is no snapshot of "receipt" \(case "default"\) \(snapshots\/receipt\/default\.html, snapshots\/receipt\/default\.txt\): run sendbox check -u/,
      ),
      expect.stringMatching(/^snapshots\/receipt\/big\.html:1:1 {2}snapshot_missing {2}/),
      expect.stringMatching(/^snapshots\/welcome\/default\.html:1:1 {2}snapshot_missing {2}/),
    ])
    expect(await filesUnder(join(dir, 'snapshots'))).toEqual(['.keep'])
  })

  it('a folder named with --snapshots is compared even when it is missing: under CI a lost folder fails', async () => {
    const dir = await project()
    const result = await check(dir, ['--snapshots', 'review'], { CI: '1' })
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^review\/welcome\/default\.html:1:1 {2}snapshot_missing/m)
    const local = await check(dir, [], { SENDBOX_SNAPSHOTS: 'review' })
    expect(local.code, local.stdout).toBe(0)
    expect(local.stderr).toContain('written  review/welcome/default.html')
  })

  it('a changed render is snapshot_changed at the first differing line and column of the snapshot file, a unified diff under it; exit 1', async () => {
    const dir = await project()
    expect((await check(dir, ['-u'])).code).toBe(0)
    await writeFile(
      join(dir, 'templates/welcome.liquid'),
      PROJECT['templates/welcome.liquid'].replace('Glad you are', 'Happy you are'),
    )
    const result = await check(dir)
    expect(result.code).toBe(1)
    const out = result.stdout.split('\n')
    // Line 3 of the snapshot is `    <p>Glad you are here.</p>`: column 8 is where it differs.
    expect(out[0]).toBe(
      'snapshots/welcome/default.html:3:8  snapshot_changed  The HTML of "welcome" (case "default") differs from its snapshot from here; review the change, then accept it with sendbox check -u.',
    )
    expect(out.slice(1, 9)).toEqual([
      '    --- snapshots/welcome/default.html',
      '    +++ welcome (default), rendered now',
      '    @@ -1,4 +1,4 @@',
      '     <html><body>',
      '         <h1>Welcome, Ada!</h1>',
      '    -    <p>Glad you are here.</p>',
      '    +    <p>Happy you are here.</p>',
      '       </body></html>',
    ])
    expect(result.stdout).toMatch(
      /^snapshots\/welcome\/default\.txt:3:1 {2}snapshot_changed {2}The text of "welcome"/m,
    )
    expect(result.stderr.trim()).toBe('✖ 2 problems in 1 template')
    // --json carries the same, with the diff.
    const json = JSON.parse((await check(dir, ['--json'])).stdout) as {
      problems: Array<{ file: string; line: number; column: number; code: string; diff?: string }>
    }
    expect(json.problems[0]).toMatchObject({
      file: 'snapshots/welcome/default.html',
      line: 3,
      column: 8,
      code: 'snapshot_changed',
      diff: expect.stringContaining('+    <p>Happy you are here.</p>'),
    })
  })

  it('a long diff is cut short on the console, saying how much was left out; --json has it whole', async () => {
    const many = Array.from({ length: 80 }, (_, i) => `<p>Line ${i}</p>`).join('\n')
    const dir = await project({ 'templates/long.liquid': `<div>\n${many}\n</div>\n` })
    expect((await check(dir, ['-u'])).code).toBe(0)
    await writeFile(
      join(dir, 'templates/long.liquid'),
      `<div>\n${many.replaceAll('Line', 'Row')}\n</div>\n`,
    )
    const result = await check(dir)
    const html = result.stdout.split(/\n(?=\S)/)[0]!.split('\n')
    expect(html).toHaveLength(1 + 30 + 1)
    expect(html.at(-1)).toMatch(/^ {4}… \d+ more lines$/)
    const json = JSON.parse((await check(dir, ['--json'])).stdout) as {
      problems: Array<{ diff: string }>
    }
    expect(json.problems[0]!.diff.split('\n').length).toBeGreaterThan(160)
  })

  it('a snapshot whose template or fixture case is gone is snapshot_obsolete; exit 1', async () => {
    const dir = await project()
    expect((await check(dir, ['-u'])).code).toBe(0)
    await rm(join(dir, 'templates/welcome.liquid'))
    await rm(join(dir, 'fixtures/receipt/big.json'))
    const result = await check(dir)
    expect(result.code).toBe(1)
    expect(lines(result.stdout)).toEqual([
      'snapshots/receipt/big.html:1:1  snapshot_obsolete  The snapshot of "receipt" (case "big") is obsolete: the template "receipt" has no fixture case "big" any more. sendbox check -u removes it (snapshots/receipt/big.html, snapshots/receipt/big.txt).',
      'snapshots/welcome/default.html:1:1  snapshot_obsolete  The snapshot of "welcome" (case "default") is obsolete: there is no template "welcome" any more. sendbox check -u removes it (snapshots/welcome/default.html, snapshots/welcome/default.txt).',
    ])
  })

  it('the snapshot folder defaults to beside the templates folder, not the folder sendbox runs in', async () => {
    const dir = await project()
    const elsewhere = await tempDir('sendbox-snap-cwd-')
    dirs.push(elsewhere)
    const result = await check(elsewhere, [
      '-u',
      '--templates',
      join(dir, 'templates'),
      '--fixtures',
      join(dir, 'fixtures'),
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(await filesUnder(join(dir, 'snapshots'))).toEqual(SNAPSHOT_FILES)
    expect(await readdir(elsewhere)).toEqual([])
  })

  it('-u writes every snapshot anew, removes obsolete ones, prints what changed, exits 0', async () => {
    const dir = await project()
    expect((await check(dir, ['--update'])).code).toBe(0)
    await writeFile(
      join(dir, 'fixtures/receipt/default.json'),
      '{ "order": { "id": "7", "total": "3.00" } }',
    )
    await rm(join(dir, 'templates/welcome.liquid'))
    await writeFiles(dir, { 'templates/reset.liquid': '<p>Reset</p>' })
    // -u under CI too: it is what a person runs after review.
    const result = await check(dir, ['-u'], { CI: 'true' })
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toBe('')
    expect(lines(result.stderr)).toEqual([
      'Snapshots:',
      '  written  snapshots/reset/default.html',
      '  written  snapshots/reset/default.txt',
      '  updated  snapshots/receipt/default.html',
      '  updated  snapshots/receipt/default.txt',
      '  removed  snapshots/welcome/default.html',
      '  removed  snapshots/welcome/default.txt',
      '✔ 2 templates, 3 cases: no problems',
    ])
    expect(await filesUnder(join(dir, 'snapshots'))).toEqual([
      'receipt/big.html',
      'receipt/big.txt',
      'receipt/default.html',
      'receipt/default.txt',
      'reset/default.html',
      'reset/default.txt',
    ])
    expect(await readFile(join(dir, 'snapshots/receipt/default.txt'), 'utf8')).toBe(
      'Order 7 for 3.00\n',
    )
    // Nothing changed since: -u writes nothing and says so.
    const quiet = await check(dir, ['-u'])
    expect(lines(quiet.stderr)).toEqual(['✔ 2 templates, 3 cases: no problems'])
  })

  it('-u exits 1 when a template fails, and keeps its snapshot', async () => {
    const dir = await project()
    expect((await check(dir, ['-u'])).code).toBe(0)
    await writeFile(join(dir, 'templates/receipt.liquid'), '<p>{% if order.id %}</p>')
    const result = await check(dir, ['-u'])
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/^templates\/receipt\.liquid:1:\d+ {2}template_invalid/m)
    expect(await readFile(join(dir, 'snapshots/receipt/default.txt'), 'utf8')).toBe(
      'Order 1 for 2.00\n',
    )
  })

  it('--visual without a Chromium is exit 2 with a line that says how to give one, before any render', async () => {
    const dir = await project()
    const given = await check(dir, ['--visual', '--browser', join(dir, 'no-such-browser')])
    expect(given.code).toBe(2)
    expect(given.stderr.trim()).toBe(
      `sendbox: --browser: ${join(dir, 'no-such-browser')} is not an executable browser; sendbox check --visual needs a Chromium.`,
    )
    const none = await check(dir, ['--visual'], { PATH: dir })
    expect(none.code).toBe(2)
    expect(none.stderr.trim()).toMatch(
      /^sendbox: --visual: no Chromium found: sendbox check --visual needs one \(give it with --browser PATH or SENDBOX_BROWSER, or put chromium, chromium-browser, google-chrome, google-chrome-stable on the PATH; .*\)\.$/,
    )
    await expect(stat(join(dir, 'snapshots'))).rejects.toThrow()
  })

  it('a bad --snapshot-now is bad usage (exit 2)', async () => {
    const dir = await project()
    const result = await check(dir, ['--snapshot-now', 'yesterday'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--snapshot-now: expected an RFC 3339 time')
  })
})

const FAKE_CLOCK = fileURLToPath(new URL('./fake-clock.mjs', import.meta.url))

describe('snapshots are the same bytes on any day, in any zone and locale, in any checkout', () => {
  const DATED = {
    'templates/dated.liquid': [
      '<p>Sent {{ "now" | date: "%Y-%m-%d %H:%M %Z, %A %d %B" }}</p>',
      '<p>Today {{ "today" | date_to_long_string }} · {{ "now" | date_to_rfc822 }}</p>',
      '<p>Due {{ due | date: "%H:%M on %b %d" }}</p>',
    ].join('\n'),
    'fixtures/dated.json': '{ "due": "2026-03-01 10:00" }',
  }
  const run = (cwd: string, now: string, zone: string, lang: string) =>
    check(cwd, ['-u'], {
      NODE_OPTIONS: `--import=${FAKE_CLOCK}`,
      SENDBOX_FAKE_NOW: now,
      TZ: zone,
      LANG: lang,
      LC_ALL: lang,
    })

  it('two checkouts, two dates, two zones, two locales: byte-identical snapshots', async () => {
    const first = await project(DATED)
    const second = await project(DATED)
    const a = await run(first, '2031-07-04T23:30:00Z', 'Pacific/Auckland', 'de_DE.UTF-8')
    const b = await run(second, '2027-02-10T03:15:00Z', 'America/Los_Angeles', 'en_US.UTF-8')
    expect(a.code, a.stdout + a.stderr).toBe(0)
    expect(b.code, b.stdout + b.stderr).toBe(0)
    const html = async (dir: string) => readFile(join(dir, 'snapshots/dated/default.html'), 'utf8')
    expect(await html(first)).toBe(await html(second))
    expect(await html(first)).toBe(
      '<p>Sent 2026-01-01 12:00 UTC, Thursday 01 January</p>\n<p>Today 01 January 2026 · Thu, 01 Jan 2026 12:00:00 +0000</p>\n<p>Due 10:00 on Mar 01</p>\n',
    )
    // The copy in the other checkout passes there as it is.
    await rm(join(second, 'snapshots'), { recursive: true })
    await cp(join(first, 'snapshots'), join(second, 'snapshots'), { recursive: true })
    const across = await check(second, [], { TZ: 'Asia/Kolkata' })
    expect(across.code, across.stdout).toBe(0)
  })

  it('--snapshot-now sets the instant "now" stands for', async () => {
    const dir = await project(DATED)
    expect((await check(dir, ['-u', '--snapshot-now', '2030-06-15T08:00:00Z'])).code).toBe(0)
    expect(await readFile(join(dir, 'snapshots/dated/default.html'), 'utf8')).toContain(
      'Sent 2030-06-15 08:00 UTC, Saturday 15 June',
    )
  })
})
