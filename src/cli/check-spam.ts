import { ConfigError, spamdAddress } from '../config.js'
import { renderEml } from '../core/spam.js'
import type { SpamReport } from '../checks/spamd-protocol.js'
import type { Problem, RenderedCase, RenderRule } from './check-types.js'

/**
 * `sendbox check --spamassassin HOST:PORT`: every rendered case scored by a SpamAssassin spamd,
 * as a message of that template would be (src/checks/spamd.ts). The scores go into `--json`;
 * `--fail-on-spam SCORE` makes a case scored above SCORE an error, and without it a case spamd
 * calls spam is a warning. spamd failing is one error, and the cases after it are not asked.
 */

/** One case's score, as `--json` carries it. */
export interface CaseSpamScore extends SpamReport {
  template: string
  /** The fixture case, or null for the front matter's examples. */
  case: string | null
}

/** `--spamassassin` and `--fail-on-spam`, checked (bad usage is a `ConfigError`). */
export function spamOptions(values: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const address = spamdAddress(
    (values.spamassassin as string | undefined) ?? env.SENDBOX_SPAMASSASSIN,
  )
  const raw = (values['fail-on-spam'] as string | undefined) ?? env.SENDBOX_FAIL_ON_SPAM
  const failOn = raw === undefined ? null : Number(raw)
  if (failOn !== null && (raw!.trim() === '' || !Number.isFinite(failOn)))
    throw new ConfigError(
      '--fail-on-spam',
      `expected a score such as 5, got ${JSON.stringify(raw)}`,
    )
  if (failOn !== null && !address)
    throw new ConfigError('--fail-on-spam', 'needs --spamassassin host:port, a spamd to ask')
  return address ? { address, failOn } : null
}

const named = (rendered: RenderedCase) =>
  `"${rendered.template.slug}" with ${rendered.caseName === null ? 'its front-matter examples' : `the fixture case "${rendered.caseName}"`}`

/** The problem a score makes, if any: above `--fail-on-spam` an error, spam by spamd's threshold a warning. */
function scoreProblem(
  rendered: RenderedCase,
  report: SpamReport,
  failOn: number | null,
): Problem | null {
  const over = failOn !== null && report.score > failOn
  if (!over && !(failOn === null && report.isSpam)) return null
  const top = report.rules
    .filter((rule) => rule.score > 0)
    .slice(0, 5)
    .map((rule) => `${rule.name} (+${rule.score.toFixed(1)}: ${rule.description})`)
  const limit = over ? `over --fail-on-spam ${failOn}` : `spamd's threshold is ${report.threshold}`
  return {
    file: rendered.source,
    line: 1,
    column: 1,
    code: 'spam_score',
    message: `SpamAssassin scores ${named(rendered)} ${report.score} (${limit}): ${top.join(', ') || 'no rule with points'}.`,
    severity: over ? 'error' : 'warning',
  }
}

/**
 * The rule, and the scores it gathers.
 *
 * @example
 * const spam = spamChecks({ address: { host: '127.0.0.1', port: 783 }, failOn: 5 })
 * await checkCatalog(catalog, { rules: [spam.rule] })
 * spam.scores[0] // { template: 'welcome', case: 'default', score: 0.1, threshold: 5, isSpam: false, rules: [...] }
 */
export function spamChecks(options: {
  address: { host: string; port: number }
  failOn: number | null
  timeoutMs?: number
}): { rule: RenderRule; scores: CaseSpamScore[] } {
  const scores: CaseSpamScore[] = []
  let failed = false
  const rule: RenderRule = async (rendered) => {
    if (failed) return []
    const { scoreWithSpamd, SpamdError } = await import('../checks/spamd.js')
    try {
      const report = await scoreWithSpamd(
        options.address,
        renderEml({ ...rendered, slug: rendered.template.slug }),
        {
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        },
      )
      scores.push({ template: rendered.template.slug, case: rendered.caseName, ...report })
      const problem = scoreProblem(rendered, report, options.failOn)
      return problem ? [problem] : []
    } catch (error) {
      if (!(error instanceof SpamdError)) throw error
      failed = true
      const message = `${error.message} No template was scored from ${named(rendered)} on.`
      return [
        {
          file: rendered.source,
          line: 1,
          column: 1,
          code: 'spam_check_failed',
          message,
          severity: 'error',
        },
      ]
    }
  }
  return { rule, scores }
}
