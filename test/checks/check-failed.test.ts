import { describe, expect, it } from 'vitest'
import { CachingDoIUseEmail, CLIENTS, readableDeclarations } from '../../src/checks/clients.js'
import { parseHtml } from '../../src/checks/html.js'
import { checkEmail, checkFailed } from '../../src/checks/index.js'
import { caniemailFeatures, everyFeatureHtml, knows, lacks } from './caniemail-data.js'

const TEXT = 'Order 1042 left our warehouse today and should reach you by Friday.'
const FEATURES = caniemailFeatures()

describe('a feature caniemail does not know for a client', () => {
  it('is in the data: the case is real (17 features lack a listed client)', () => {
    const unknown = FEATURES.filter((f) => CLIENTS.some((c) => !knows(f, c))).map((f) => f.title)
    expect(unknown).toEqual(expect.arrayContaining(['table-layout', 'hyphens', 'font-stretch']))
    expect(unknown.length).toBeGreaterThanOrEqual(17)
  })

  it('is unknown there, never an error: every feature of the data, client by client', () => {
    const checker = new CachingDoIUseEmail({ emailClients: CLIENTS })
    // By title, the last entry of a title winning, as doiuse reads them (one title is twice).
    for (const feature of new Map(FEATURES.map((f) => [f.title, f])).values()) {
      checker.errors = []
      expect(() => checker.checkFeaturesSupport(feature.title), feature.title).not.toThrow()
      // What doiuse says for the clients it knows, nothing for the others.
      const lacking = CLIENTS.filter((c) => lacks(feature, c))
      expect([...new Set(checker.errors)].sort(), feature.title).toEqual(
        lacking.map((c) => `\`${feature.title}\` is not supported by \`${c}\``).sort(),
      )
    }
  })

  it('<table style="table-layout:fixed"> is checked, and Thunderbird is not said to lack it', async () => {
    const report = await checkEmail({
      html: '<table style="table-layout:fixed"><tr><td>Hi</td></tr></table>',
      text: TEXT,
    })
    expect(report.findings.map((f) => f.code)).not.toContain('check_failed')
    const thunderbird = report.clients.find((c) => c.client === 'thunderbird.macos')!
    expect(thunderbird.unsupported).not.toContain('table-layout')
    expect(report.clients).toHaveLength(CLIENTS.length)
  })

  it('an email using every feature of the data on one element is checked whole', async () => {
    const report = await checkEmail({ html: everyFeatureHtml(FEATURES), text: TEXT })
    expect(report.findings.filter((f) => f.code === 'check_failed')).toEqual([])
    const outlook = report.clients.find((c) => c.client === 'outlook.windows')!
    // The 17 features Thunderbird or Fastmail have no data on are among those used.
    expect(outlook.used).toBeGreaterThan(100)
    for (const title of ['table-layout', 'hyphens', 'font-stretch', 'overflow-wrap'])
      expect(
        report.clients.flatMap((c) => c.unsupported),
        title,
      ).toContain(title)
  })
})

describe('markup the client check could not read before', () => {
  it('a style without a colon, an unclosed comment, a broken selector: checked, not thrown', async () => {
    for (const html of [
      '<p style="color">Hi</p>',
      '<p style="display:flex; /* unclosed">Hi</p>',
      '<style>td:nth-child(2n+1 { color: red } a:has() { color: blue }</style><p>Hi</p>',
    ]) {
      const report = await checkEmail({ html, text: TEXT })
      expect(
        report.findings.filter((f) => f.code === 'check_failed'),
        html,
      ).toEqual([])
      expect(report.clients, html).toHaveLength(CLIENTS.length)
    }
  })

  it('keeps the declarations a client applies of a style it cannot read whole', async () => {
    expect(readableDeclarations('color; display: flex /* unclosed')).toEqual([
      { property: 'display', value: 'flex' },
    ])
    const checker = new CachingDoIUseEmail({ emailClients: CLIENTS })
    const errors = checker.run(parseHtml('<p style="color; display:flex">Hi</p>'))
    expect(errors).toContain('`display:flex` is not supported by `outlook.windows`')
  })
})

describe('check_failed', () => {
  it('names the check, what it threw and where', () => {
    const finding = checkFailed('accessibility', new TypeError('x is undefined'))
    expect(finding).toMatchObject({
      check: 'accessibility',
      code: 'check_failed',
      severity: 'warning',
    })
    expect(finding.message).toMatch(
      /^The accessibility check could not run on this email: it threw TypeError: x is undefined \(at .+\)\. The other checks ran\.$/,
    )
    expect(checkFailed('clients', 'a string').message).toContain('it threw a string.')
  })
})
