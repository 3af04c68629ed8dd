import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { modulesInBundle } from '../helpers/bundles.js'
import { tempDir } from '../helpers/sandbox.js'

/** What scripts/bundle.js wrote (test/global-setup.ts runs it before the tests). */
const bundles = readdirSync(join(ROOT, 'dist'))
  .filter((name) => /^sendbox(-.*)?\.js$/.test(name))
  .map((name) => ({ name, code: readFileSync(join(ROOT, 'dist', name), 'utf8') }))

it('ships the bin and the library as bundles, with packages loaded lazily left outside', () => {
  expect(bundles.map((b) => b.name)).toEqual(
    expect.arrayContaining(['sendbox.js', 'sendbox-cli.js']),
  )
  const modules = bundles.flatMap((b) => modulesInBundle(join(ROOT, 'dist', b.name)))
  for (const lazy of [
    'html-to-text',
    'email-addresses',
    'open',
    '@modelcontextprotocol/sdk',
    'zod',
  ])
    expect(modules.filter((m) => m.includes(`/node_modules/${lazy}/`))).toEqual([])
  expect(modules.some((m) => m.startsWith(`${join(ROOT, 'node_modules', 'h3')}/`))).toBe(true)
})

it('carries the caniemail data as a JSON string, not an object literal V8 must compile', () => {
  const holders = bundles
    .filter((b) => b.code.includes('api_version'))
    .map((b) => ({
      name: b.name,
      json: /= JSON\.parse\("\{\\"api_version\\"/.test(b.code),
      literal: /\bapi_version: "/.test(b.code),
    }))
  expect(holders).toEqual([{ name: expect.any(String), json: true, literal: false }])
})

it('scripts/bundle.js runs as a script from a path with a space and a #', async () => {
  const dir = join(await tempDir(), 'a b#c')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  mkdirSync(join(dir, 'dist', 'cli'), { recursive: true })
  copyFileSync(join(ROOT, 'scripts', 'bundle.js'), join(dir, 'scripts', 'bundle.js'))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  writeFileSync(join(dir, 'dist', 'index.js'), 'export const answer = 42\n')
  writeFileSync(join(dir, 'dist', 'cli', 'index.js'), "export { answer } from '../index.js'\n")
  execFileSync(process.execPath, [join(dir, 'scripts', 'bundle.js'), join(dir, 'dist')], {
    stdio: 'pipe',
  })
  expect(
    readdirSync(join(dir, 'dist'))
      .filter((name) => name.startsWith('sendbox'))
      .sort(),
  ).toEqual(expect.arrayContaining(['sendbox-cli.js', 'sendbox.js']))
})

it('a rebuild replaces the bundles in place: a process starting meanwhile never finds one missing', async () => {
  const dir = join(await tempDir(), 'pkg')
  mkdirSync(join(dir, 'dist', 'cli'), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  writeFileSync(join(dir, 'dist', 'index.js'), 'export const answer = 42\n')
  writeFileSync(join(dir, 'dist', 'cli', 'index.js'), "export { answer } from '../index.js'\n")
  const script = join(ROOT, 'scripts', 'bundle.js')
  execFileSync(process.execPath, [script, join(dir, 'dist')], { stdio: 'pipe' })
  let missing = 0
  let looks = 0
  const look = setInterval(() => {
    looks++
    if (
      !existsSync(join(dir, 'dist', 'sendbox-cli.js')) ||
      !existsSync(join(dir, 'dist', 'sendbox.js'))
    )
      missing++
  }, 1)
  try {
    await promisify(execFile)(process.execPath, [script, join(dir, 'dist')])
  } finally {
    clearInterval(look)
  }
  expect(looks).toBeGreaterThan(5)
  expect(missing).toBe(0)
  expect(readdirSync(join(dir, 'dist')).filter((name) => name.startsWith('.bundle-'))).toEqual([])
})
