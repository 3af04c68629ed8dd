import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTemplateCatalog,
  missingVariables,
  unusedVariables,
  type TemplateCatalog,
} from '../../src/templates/index.js'

/** The templates and fixtures that ship with sendbox (what `npm start` shows a newcomer). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

let catalog: TemplateCatalog
const warnings: string[] = []
beforeAll(async () => {
  catalog = await createTemplateCatalog({
    templatesDir: path.join(ROOT, 'templates'),
    fixturesDir: path.join(ROOT, 'fixtures'),
    watch: false,
    warn: (m) => warnings.push(m),
  })
})
afterAll(() => catalog.close())

const EXPECTED: Record<string, Record<string, string[]>> = {
  welcome: {
    default: [
      'Welcome, Ada!',
      'Acme Cloud',
      'https://example.com/dashboard',
      '<title>Welcome</title>',
    ],
  },
  'password-reset': {
    default: [
      'Hi Ada',
      'https://example.com/reset?token=3f9a2c7e',
      'expires in 45 minutes',
      '<title>Reset your password</title>',
    ],
  },
  'order-receipt': {
    default: [
      'Ada Lovelace',
      '#1042',
      'Analytical Engine manual',
      'Punched cards (pack of 100)',
      '42.00 USD',
      'https://example.com/orders/1042',
      'View your order',
    ],
    'big-order': ['Charles Babbage', '#2077', 'Gear wheel no. 1', 'Gear wheel no. 40', 'GBP'],
  },
}

describe('shipped examples', () => {
  it('are the expected templates, all valid, with fixtures that load cleanly', () => {
    expect(catalog.list().map((t) => [t.slug, t.error])).toEqual([
      ['order-receipt', undefined],
      ['password-reset', undefined],
      ['welcome', undefined],
    ])
    expect(warnings).toEqual([])
    for (const summary of catalog.list()) expect(summary.description, summary.slug).toBeTruthy()
  })

  it('declare what they read', () => {
    const variables = Object.fromEntries(catalog.list().map((t) => [t.slug, t.variables]))
    expect(variables).toEqual({
      'order-receipt': ['currency', 'customer', 'order'],
      'password-reset': ['expiresInMinutes', 'name', 'resetUrl'],
      welcome: ['dashboardUrl', 'name', 'product'],
    })
  })

  for (const [slug, cases] of Object.entries(EXPECTED)) {
    for (const [name, expected] of Object.entries(cases)) {
      it(`${slug} renders its "${name}" fixture with no missing or unused variables`, () => {
        const found = catalog.lookup(slug)
        if (!found.ok) throw new Error(JSON.stringify(found))
        const fixture = catalog.fixtures(slug).find((c) => c.name === name)
        expect(fixture?.variables, `${slug}/${name}`).toBeDefined()
        const variables = fixture!.variables!
        expect(missingVariables(found.template, variables)).toEqual([])
        expect(unusedVariables(found.template, variables)).toEqual([])
        const result = found.render(variables)
        if (!result.ok) throw new Error(JSON.stringify(result.error))
        for (const text of expected) expect(result.html).toContain(text)
        expect(result.html.startsWith('<!doctype html>')).toBe(true)
        expect(result.html).toContain('<html lang="en">')
        expect(result.html).not.toMatch(/localhost|http:\/\//)
      })
    }
  }

  it('have dark-mode rules, as Apple Mail and Outlook for Mac apply them', () => {
    for (const summary of catalog.list()) {
      const found = catalog.lookup(summary.slug)
      if (!found.ok) throw new Error(summary.slug)
      const result = found.render(catalog.fixtures(summary.slug)[0]!.variables!)
      if (!result.ok) throw new Error(JSON.stringify(result.error))
      expect(result.html, summary.slug).toContain('<meta name="color-scheme" content="light dark">')
      expect(result.html, summary.slug).toMatch(/@media \(prefers-color-scheme: dark\) \{/)
    }
  })

  it('cover every fixture case', () => {
    const cases = catalog
      .list()
      .flatMap((t) => catalog.fixtures(t.slug).map((c) => `${t.slug}/${c.name}`))
    expect(cases.sort()).toEqual(
      Object.entries(EXPECTED)
        .flatMap(([slug, c]) => Object.keys(c).map((n) => `${slug}/${n}`))
        .sort(),
    )
  })

  it('report what a request leaves out', () => {
    const found = catalog.lookup('order-receipt')
    if (!found.ok) throw new Error('order-receipt is not valid')
    expect(found.template.requiredPaths).toEqual([
      'customer.name',
      'order.id',
      'order.items',
      'order.total',
      'order.url',
    ])
    expect(missingVariables(found.template, { order: { id: 1 } })).toEqual([
      'customer.name',
      'order.items',
      'order.total',
      'order.url',
    ])
  })
})
