import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PNG } from 'pngjs'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tempDir, writeFiles } from '../helpers/sandbox.js'
import { CHROMIUM, hasChromium } from './helpers.js'

/**
 * `sendbox check --visual` in Debian's Chromium (docs/snapshots.md#pixels---visual): every case at 375 and 600 px,
 * light and dark, as PNG snapshots; an unchanged project passes, a colour change is
 * visual_changed with a diff image that marks it.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const BUTTON = (colour: string) =>
  `<!doctype html><html><head><meta name="color-scheme" content="light dark"><style>@media (prefers-color-scheme: dark) { body { background: #111; color: #eee } }</style></head>
<body style="margin:0;padding:24px;font-family:sans-serif">
<h1 style="font-size:24px">Hi {{ name }}</h1>
<table role="presentation"><tr><td style="background:${colour};padding:12px 24px;border-radius:6px"><a href="https://example.com/x" style="color:#fff">Open</a></td></tr></table>
<img src="https://example.com/logo.png" alt="Logo" width="80" height="20">
</body></html>`

const check = (cwd: string, args: string[]) =>
  runCli(['check', '--no-email-checks', '--visual', '--browser', CHROMIUM, ...args], {
    cwd,
    env: { CI: '' },
    timeout: 60_000,
  })

describe.skipIf(!hasChromium)('sendbox check --visual', () => {
  it('writes a PNG per case, width and scheme; an unchanged project passes; a colour change is visual_changed with a diff image', async () => {
    const dir = await tempDir('sendbox-visual-')
    dirs.push(dir)
    await writeFiles(dir, {
      'templates/welcome.liquid': `---\nvariables:\n  name: { example: Ada }\n---\n${BUTTON('#3b5bdb')}`,
    })
    const first = await check(dir, [])
    expect(first.code, first.stdout + first.stderr).toBe(0)
    const snapshots = join(dir, 'snapshots')
    expect((await readdir(join(snapshots, 'welcome'))).sort()).toEqual([
      'default.375-dark.png',
      'default.375-light.png',
      'default.600-dark.png',
      'default.600-light.png',
      'default.html',
      'default.txt',
    ])
    const light = PNG.sync.read(await readFile(join(snapshots, 'welcome/default.375-light.png')))
    const dark = PNG.sync.read(await readFile(join(snapshots, 'welcome/default.375-dark.png')))
    expect(light.width).toBe(375)
    expect(
      PNG.sync.read(await readFile(join(snapshots, 'welcome/default.600-light.png'))).width,
    ).toBe(600)
    // The dark screenshot is dark: its first pixel is the dark background.
    expect([...light.data.subarray(0, 3)]).toEqual([255, 255, 255])
    expect([...dark.data.subarray(0, 3)]).toEqual([17, 17, 17])

    const again = await check(dir, [])
    expect(again.code, again.stdout).toBe(0)
    expect(again.stderr).not.toContain('written')

    // The same HTML, another button colour: only pixels tell.
    await writeFile(
      join(dir, 'templates/welcome.liquid'),
      `---\nvariables:\n  name: { example: Ada }\n---\n${BUTTON('#db3b3b')}`,
    )
    await rm(join(snapshots, 'welcome/default.html'))
    await rm(join(snapshots, 'welcome/default.txt'))
    const changed = await check(dir, [])
    expect(changed.code).toBe(1)
    const lines = changed.stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(
      /^snapshots\/welcome\/default\.375-light\.png:1:1 {2}visual_changed {2}\d+ pixels \(\d+\.\d\d%\) of "welcome" \(case "default"\) at 375 px, light, differ from the screenshot snapshot: the diff is snapshots\/\.diff\/welcome\/default\.375-light\.diff\.png/,
    )
    const diff = PNG.sync.read(
      await readFile(join(snapshots, '.diff/welcome/default.375-light.diff.png')),
    )
    let red = 0
    for (let i = 0; i < diff.data.length; i += 4)
      if (diff.data[i] === 255 && diff.data[i + 1] === 0 && diff.data[i + 2] === 0) red++
    expect(red).toBeGreaterThan(100)
    expect(await readFile(join(snapshots, '.diff/.gitignore'), 'utf8')).toContain('*')

    // Accepted with -u: the snapshot is the new screenshot, the review images go.
    const accepted = await check(dir, ['-u'])
    expect(accepted.code, accepted.stdout).toBe(0)
    expect(accepted.stderr).toContain('updated  snapshots/welcome/default.375-light.png')
    expect(await readdir(join(snapshots, '.diff/welcome')).catch(() => [])).toEqual([])
    expect((await check(dir, [])).code).toBe(0)
  }, 240_000)
})
