import type { CheckReport, ClientScore, Finding, Severity } from './api.js'
import { plural } from './format.js'
import { Placeholder, TabBadge } from './ui.js'

/**
 * The email checks, as a panel: what to fix first (errors, then warnings; notes folded away),
 * each with its fix and the line of the rendered HTML it is about; the email's accessibility
 * under its own heading; the HTML size against Gmail's clipping; and how well the big mail
 * clients support what the email uses.
 */

/** Gmail clips past about 102 KB of HTML; the checks warn from 75 KB (as src/checks does). */
export const GMAIL_CLIP_BYTES = 102 * 1024
const SIZE_WARN_BYTES = 75 * 1024

const GROUPS: { severity: Severity; title: string; one: string }[] = [
  { severity: 'error', title: 'Errors', one: 'error' },
  { severity: 'warning', title: 'Warnings', one: 'warning' },
  { severity: 'info', title: 'Notes', one: 'note' },
]

/**
 * For the tab's badge: how many errors and warnings, said in words too.
 *
 * @example
 * checkSummary({ counts: { error: 1, warning: 2, info: 0 } }) // { count: 3, severity: 'error', words: '1 error, 2 warnings' }
 */
export function checkSummary(report: Pick<CheckReport, 'counts'>): {
  count: number
  severity: 'error' | 'warning' | 'ok'
  words: string
} {
  const { error, warning } = report.counts
  const words =
    error + warning === 0
      ? 'no problems'
      : [error ? plural(error, 'error') : '', warning ? plural(warning, 'warning') : '']
          .filter(Boolean)
          .join(', ')
  return { count: error + warning, severity: error ? 'error' : warning ? 'warning' : 'ok', words }
}

/** The Checks tab's badge: the report's errors and warnings; none without a report. */
export function ChecksBadge({ report }: { report: CheckReport | null }) {
  return report ? <TabBadge {...checkSummary(report)} /> : null
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

export interface ChecksTabProps {
  prefix: 'message' | 'template'
  report: CheckReport | null
  error: string | null
  /** "line 42" as a link to the Source tab at that line. */
  lineHref: (line: number) => string
}

/** The Checks tab's panel: the report, else why there is none (yet). */
export function ChecksTab({ prefix, report, error, lineHref }: ChecksTabProps) {
  if (!report)
    return (
      <Placeholder>
        <p>{error ? `Could not check the ${prefix}: ${error}` : 'Checking…'}</p>
      </Placeholder>
    )
  const { counts } = report
  const total = counts.error + counts.warning + counts.info
  const summary =
    total === 0
      ? 'No problems found.'
      : GROUPS.filter((g) => counts[g.severity])
          .map((g) => plural(counts[g.severity], g.one))
          .join(' · ')
  return (
    <div class="details checks" id={`${prefix}-checks`}>
      <p class="checks-summary" id={`${prefix}-checks-summary`}>
        {summary}
      </p>
      <SizeBlock prefix={prefix} bytes={report.htmlBytes} />
      {GROUPS.map((group) => (
        <FindingGroup
          key={group.severity}
          prefix={prefix}
          group={group}
          findings={report.findings.filter(
            (f) => f.severity === group.severity && f.check !== 'accessibility',
          )}
          lineHref={lineHref}
        />
      ))}
      <AccessibilityGroup
        prefix={prefix}
        findings={report.findings.filter((f) => f.check === 'accessibility')}
        lineHref={lineHref}
      />
      {/* No scores when the clients check could not run: its check_failed finding says so. */}
      {report.clients.length ? <ClientTable prefix={prefix} clients={report.clients} /> : null}
    </div>
  )
}

function SizeBlock({ prefix, bytes }: { prefix: string; bytes: number }) {
  const state = bytes >= GMAIL_CLIP_BYTES ? 'error' : bytes >= SIZE_WARN_BYTES ? 'warning' : 'ok'
  const verdict =
    state === 'error'
      ? 'Gmail clips it: the rest hides behind "View entire message".'
      : state === 'warning'
        ? 'Close to where Gmail clips.'
        : 'Well under where Gmail clips.'
  return (
    <div class="size" id={`${prefix}-checks-size`} data-state={state}>
      <h3 id={`${prefix}-size-title`}>HTML size</h3>
      <p class="size-line">
        <meter
          min={0}
          max={GMAIL_CLIP_BYTES}
          low={SIZE_WARN_BYTES}
          high={GMAIL_CLIP_BYTES - 1}
          optimum={0}
          value={Math.min(bytes, GMAIL_CLIP_BYTES)}
          aria-labelledby={`${prefix}-size-title`}
          aria-describedby={`${prefix}-size-text`}
        />
        <span id={`${prefix}-size-text`}>
          <strong>{kb(bytes)}</strong> of Gmail's 102 KB limit. {verdict}
        </span>
      </p>
    </div>
  )
}

function FindingGroup({
  prefix,
  group,
  findings,
  lineHref,
}: {
  prefix: string
  group: (typeof GROUPS)[number]
  findings: Finding[]
  lineHref: (line: number) => string
}) {
  if (!findings.length) return null
  const titleId = `${prefix}-findings-${group.severity}`
  const list = (
    <ul class="findings plain">
      {findings.map((f, i) => (
        <FindingItem key={`${f.code} ${i}`} finding={f} lineHref={lineHref} />
      ))}
    </ul>
  )
  // Notes are worth knowing, not worth the screen: folded until asked for.
  if (group.severity === 'info')
    return (
      <details class="finding-group" data-severity={group.severity} id={titleId}>
        <summary>
          <h3>
            {group.title} ({findings.length})
          </h3>
        </summary>
        {list}
      </details>
    )
  return (
    <section class="finding-group" data-severity={group.severity} aria-labelledby={titleId}>
      <h3 id={titleId}>
        {group.title} ({findings.length})
      </h3>
      {list}
    </section>
  )
}

/** The accessibility findings, under their own heading; said to be none when there are none. */
function AccessibilityGroup({
  prefix,
  findings,
  lineHref,
}: {
  prefix: string
  findings: Finding[]
  lineHref: (line: number) => string
}) {
  const titleId = `${prefix}-findings-accessibility`
  return (
    <section class="finding-group" data-check="accessibility" aria-labelledby={titleId}>
      <h3 id={titleId}>Accessibility ({findings.length})</h3>
      {findings.length ? (
        <ul class="findings plain">
          {findings.map((f, i) => (
            <FindingItem key={`${f.code} ${i}`} finding={f} lineHref={lineHref} />
          ))}
        </ul>
      ) : (
        <p class="hint">
          No problem for screen readers, zoom or images off: alt text, link names, lang, title,
          contrast, text size and headings read well.
        </p>
      )}
    </section>
  )
}

function FindingItem({
  finding: f,
  lineHref,
}: {
  finding: Finding
  lineHref: (line: number) => string
}) {
  return (
    <li class="finding" data-severity={f.severity} data-code={f.code}>
      <p class="finding-message">{f.message}</p>
      <p class="finding-fix">
        <span class="finding-label">Fix: </span>
        {f.fix}
      </p>
      <p class="finding-meta">
        <span class="tag">{f.check}</span> <code class="finding-code">{f.code}</code>
        {f.line === null ? null : (
          <>
            {' · '}
            <a
              class="finding-line"
              href={lineHref(f.line)}
              title={`Show line ${f.line} of the HTML source`}
            >
              line {f.line}
              {f.column === null ? null : `, column ${f.column}`}
            </a>
          </>
        )}
      </p>
    </li>
  )
}

/** A client: its score (a colour and words), and the features it lacks. */
function ClientRow({ c }: { c: ClientScore }) {
  return (
    <tr data-client={c.client}>
      <th scope="row" title={c.client}>
        {c.name}
      </th>
      <td class="score">
        <span
          class="score-value"
          data-state={c.score >= 90 ? 'ok' : c.score >= 60 ? 'warning' : 'error'}
        >
          {c.score} %
        </span>
        <span class="visually-hidden">
          {' '}
          ({c.supported} of {c.used})
        </span>
      </td>
      <td>
        {c.unsupported.length ? (
          <span class="chips">
            {c.unsupported.map((u) => (
              <code class="chip" key={u}>
                {u}
              </code>
            ))}
          </span>
        ) : (
          <span class="muted">nothing</span>
        )}
      </td>
    </tr>
  )
}

function ClientTable({ prefix, clients }: { prefix: string; clients: ClientScore[] }) {
  const used = clients[0]?.used ?? 0
  return (
    <section class="clients" aria-labelledby={`${prefix}-clients-title`}>
      <h3 id={`${prefix}-clients-title`}>Client support</h3>
      <p class="hint">
        {used
          ? `Of the ${plural(used, 'HTML and CSS feature')} this email uses that some client lacks (from caniemail):`
          : 'Every client supports everything this email uses (from caniemail).'}
      </p>
      <div
        class="table-scroll"
        tabIndex={0}
        role="region"
        aria-labelledby={`${prefix}-clients-title`}
      >
        <table class="vars client-table" id={`${prefix}-client-table`}>
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Score</th>
              <th scope="col">Not supported</th>
            </tr>
          </thead>
          <tbody>
            {clients.map((c) => (
              <ClientRow key={c.client} c={c} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}
