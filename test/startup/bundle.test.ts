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
  .filter((name) => /^sendbox(-.*)?\.c?js$/.test(name))
  .map((name) => ({ name, code: readFileSync(join(ROOT, 'dist', name), 'utf8') }))

/** The CommonJS bundles that rolldown's build of the library and the CLI wrote (the two built alone aside). */
const commonJs = bundles.filter(
  (b) =>
    b.name.endsWith('.cjs') &&
    !['sendbox-html-to-text.cjs', 'sendbox-code-cache.cjs'].includes(b.name),
)

it('ships the bin and the library as bundles, with packages loaded lazily left outside', () => {
  expect(bundles.map((b) => b.name)).toEqual(
    expect.arrayContaining(['sendbox.js', 'sendbox.cjs', 'sendbox-cli.cjs', 'sendbox-cli.js']),
  )
  // The text converter and the loader are built alone, of what they are (scripts/bundle.js).
  const modules = [...bundles.filter((b) => b.name.endsWith('.js')), ...commonJs].flatMap((b) =>
    modulesInBundle(join(ROOT, 'dist', b.name)),
  )
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
  // Once in the ES modules, once in the CommonJS build.
  expect(holders.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
    { name: 'sendbox-clients.cjs', json: true, literal: false },
    { name: 'sendbox-clients.js', json: true, literal: false },
  ])
})

it('the CommonJS bundles are strict, as the ES modules they are built from', () => {
  expect(commonJs.length).toBeGreaterThan(10)
  expect(commonJs.filter((b) => !b.code.startsWith('"use strict";'))).toEqual([])
})

it("the CommonJS bundles import packages and each other through the loader's require (src/lib/code-cache.ts)", () => {
  // Their code, comments aside: an import() there would fail under the CLI's loader.
  const code = (b: { code: string }) =>
    b.code
      .split('\n')
      .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
      .join('\n')
  const fallback = 'require.sendboxImport ?? ((specifier) => import(specifier))'
  const imports = commonJs.flatMap((b) =>
    [
      ...code(b)
        .replace(fallback, '')
        // Not a method named import, called (`this.import(t)`) or defined (`import(t) {`).
        .matchAll(/(?<![.\w$])import\((?!\w+\)\s*\{)/g),
    ].map(() => b.name),
  )
  expect(imports).toEqual([])
  const later = commonJs.filter((b) => b.code.includes('Promise.resolve().then(() => require('))
  expect(later.map((b) => b.name)).toEqual([])
  const rewritten = commonJs.filter((b) => /__sendbox_(import|later)\(/.test(b.code))
  expect(rewritten.map((b) => b.name)).toContain('sendbox-cli.cjs')
  for (const b of rewritten)
    expect(b.code).toContain('const __sendbox_later = require.sendboxLater')
})

it('scripts/bundle.js runs as a script from a path with a space and a #', async () => {
  const dir = join(await tempDir(), 'a b#c')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  mkdirSync(join(dir, 'dist', 'cli'), { recursive: true })
  for (const script of ['bundle.js', 'text-converter.js'])
    copyFileSync(join(ROOT, 'scripts', script), join(dir, 'scripts', script))
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
  ).toEqual(expect.arrayContaining(['sendbox-cli.cjs', 'sendbox-cli.js', 'sendbox.js']))
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
      !existsSync(join(dir, 'dist', 'sendbox-cli.cjs')) ||
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
