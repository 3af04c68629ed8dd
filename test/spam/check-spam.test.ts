import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tempDir, writeFiles } from '../helpers/sandbox.js'
import { describeSpamd, spamdReady, tcpServer } from '../helpers/spamd.js'

/** `sendbox check --spamassassin`: each case scored by the run's real spamd (test/spamd-setup.ts). */

const CLEAN = `<!doctype html><html lang="en"><head><title>Your receipt</title></head><body>
<h1>Thanks for your order, {{ name }}</h1>
<p>We received your payment for order 1042. Your books ship from our warehouse within two working
days, and we will write again with the tracking number once the parcel leaves.</p>
<p>Questions about this order? Reply to this email and a person from our team will answer.</p></body></html>`
const PROMO =
  '<html><head><title>FREE GIFT ACT NOW</title></head><body><a href="https://shop.example.com/offer"><img src="https://shop.example.com/banner.png" width="600" height="400" alt="Offer"></a></body></html>'

let spamd: string
let dir: string
const closing: Array<{ close(): Promise<void> }> = []
beforeAll(async () => {
  dir = await tempDir('sendbox-check-spam-')
  await writeFiles(dir, {
    'templates/receipt.liquid': CLEAN,
    'templates/promo.liquid': PROMO,
    'fixtures/receipt.json': '{"name":"Ada"}',
  })
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
  await Promise.all(closing.map((c) => c.close()))
})

const check = (args: string[]) => runCli(['check', '--no-email-checks', ...args], { cwd: dir })

interface Scores {
  spam: Array<{
    template: string
    case: string | null
    score: number
    threshold: number
    rules: Array<{ name: string }>
  }>
  problems: Array<{ code: string; severity: string; message: string }>
}

describeSpamd('sendbox check --spamassassin, by a real spamd', () => {
  beforeAll(async () => {
    spamd = await spamdReady()
  })

  it('scores every case; --json carries the scores; under the threshold nothing fails', async () => {
    const result = await check(['--spamassassin', spamd, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const report = JSON.parse(result.stdout) as Scores
    expect(report.spam.map((s) => [s.template, s.case])).toEqual([
      ['promo', null],
      ['receipt', 'default'],
    ])
    const promo = report.spam[0]!
    expect(promo.threshold).toBe(5)
    expect(promo.rules.map((r) => r.name)).toContain('SUBJ_ALL_CAPS')
    expect(promo.score).toBeGreaterThan(report.spam[1]!.score)
  })

  it('--fail-on-spam SCORE fails the run for a case above it, naming the rules', async () => {
    const result = await check(['--spamassassin', spamd, '--fail-on-spam', '0.5'])
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(
      /promo\.liquid:1:1 {2}spam_score {2}SpamAssassin scores "promo" with its front-matter examples [\d.]+ \(over --fail-on-spam 0\.5\): .*SUBJ_ALL_CAPS \(\+0\.5: Subject is all capitals\)/,
    )
    expect(result.stdout).not.toContain('"receipt"')
  })
})

it('spamd not answering is one spam_check_failed error, and the check ends', async () => {
  const silent = await tcpServer((socket) => socket.end())
  closing.push(silent)
  const result = await check(['--spamassassin', silent.address])
  expect(result.code).toBe(1)
  expect(result.stdout.match(/spam_check_failed/g)).toHaveLength(1)
  expect(result.stdout).toContain(
    `spamd at ${silent.address} closed the connection without an answer.`,
  )
})

it('--fail-on-spam without --spamassassin, or not a number, is bad usage', async () => {
  const alone = await check(['--fail-on-spam', '5'])
  expect(alone.code).toBe(2)
  expect(alone.stderr).toContain('--fail-on-spam: needs --spamassassin host:port')
  const word = await check(['--spamassassin', '127.0.0.1:1', '--fail-on-spam', 'high'])
  expect(word.stderr).toContain('--fail-on-spam: expected a score such as 5, got "high"')
})
