import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

/** What scripts/bundle.js wrote (test/global-setup.ts runs it before the tests). */
const bundles = readdirSync(join(ROOT, 'dist'))
  .filter((name) => /^sendbox(-.*)?\.js$/.test(name))
  .map((name) => ({ name, code: readFileSync(join(ROOT, 'dist', name), 'utf8') }))

it('ships the bin and the library as bundles, with packages loaded lazily left outside', () => {
  expect(bundles.map((b) => b.name)).toEqual(expect.arrayContaining(['sendbox.js', 'sendbox-cli.js']))
  const all = bundles.map((b) => b.code).join('\n')
  for (const lazy of ['html-to-text', 'email-addresses', 'open']) expect(all).not.toMatch(new RegExp(`^// \\.\\./node_modules/${lazy}/`, 'm'))
  expect(all).toMatch(/^\/\/ \.\.\/node_modules\/h3\//m)
})

it('carries the caniemail data as a JSON string, not an object literal V8 must compile', () => {
  const holders = bundles.filter((b) => b.code.includes('api_version')).map((b) => ({
    name: b.name,
    json: /= JSON\.parse\("\{\\"api_version\\"/.test(b.code),
    literal: /\bapi_version: "/.test(b.code),
  }))
  expect(holders).toEqual([{ name: expect.any(String), json: true, literal: false }])
})
