import type { CheckReport, ClientScore, Finding, Severity } from './api.js'
import { setTabBadge } from './components.js'
import { h } from './dom.js'
import { plural } from './format.js'

/**
 * The email checks, as a panel: what to fix first (errors, then warnings; notes folded away),
 * each with its fix and the line of the rendered HTML it is about; the HTML size against Gmail's
 * clipping; and how well the big mail clients support what the email uses.
 */

/** Gmail clips past about 102 KB of HTML; the checks warn from 75 KB (as src/checks does). */
export const GMAIL_CLIP_BYTES = 102 * 1024
const SIZE_WARN_BYTES = 75 * 1024

const GROUPS: { severity: Severity; title: string; one: string }[] = [
  { severity: 'error', title: 'Errors', one: 'error' },
  { severity: 'warning', title: 'Warnings', one: 'warning' },
  { severity: 'info', title: 'Notes', one: 'note' },
]

/** For the tab's badge: how many errors and warnings, said in words too. */
export function checkSummary(report: CheckReport): {
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

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/**
 * The panel. `lineHref` makes "line 42" a link (to the Source tab at that line); without it the
 * line is plain text.
 */
export function checksPanel(
  prefix: string,
  report: CheckReport,
  lineHref: ((line: number) => string) | null,
): HTMLElement {
  const { counts } = report
  const total = counts.error + counts.warning + counts.info
  const summary =
    total === 0
      ? 'No problems found.'
      : GROUPS.filter((g) => counts[g.severity])
          .map((g) => plural(counts[g.severity], g.one))
          .join(' · ')
  return h(
    'div',
    { class: 'details checks', id: `${prefix}-checks` },
    h('p', { class: 'checks-summary', id: `${prefix}-checks-summary` }, summary),
    sizeBlock(prefix, report.htmlBytes),
    GROUPS.map((group) =>
      findingGroup(
        prefix,
        group,
        report.findings.filter((f) => f.severity === group.severity),
        lineHref,
      ),
    ),
    clientTable(prefix, report.clients),
  )
}

function sizeBlock(prefix: string, bytes: number): HTMLElement {
  const state = bytes >= GMAIL_CLIP_BYTES ? 'error' : bytes >= SIZE_WARN_BYTES ? 'warning' : 'ok'
  const verdict =
    state === 'error'
      ? 'Gmail clips it: the rest hides behind "View entire message".'
      : state === 'warning'
        ? 'Close to where Gmail clips.'
        : 'Well under where Gmail clips.'
  return h(
    'div',
    { class: 'size', id: `${prefix}-checks-size`, 'data-state': state },
    h('h3', { id: `${prefix}-size-title` }, 'HTML size'),
    h(
      'p',
      { class: 'size-line' },
      h('meter', {
        min: 0,
        max: GMAIL_CLIP_BYTES,
        low: SIZE_WARN_BYTES,
        high: GMAIL_CLIP_BYTES - 1,
        optimum: 0,
        value: Math.min(bytes, GMAIL_CLIP_BYTES),
        'aria-labelledby': `${prefix}-size-title`,
        'aria-describedby': `${prefix}-size-text`,
      }),
      h(
        'span',
        { id: `${prefix}-size-text` },
        h('strong', null, kb(bytes)),
        ` of Gmail's 102 KB limit. ${verdict}`,
      ),
    ),
  )
}

function findingGroup(
  prefix: string,
  group: (typeof GROUPS)[number],
  findings: Finding[],
  lineHref: ((line: number) => string) | null,
): HTMLElement | null {
  if (!findings.length) return null
  const list = h(
    'ul',
    { class: 'findings plain' },
    findings.map((f) => findingItem(f, lineHref)),
  )
  const titleId = `${prefix}-findings-${group.severity}`
  if (group.severity === 'info') {
    // Notes are worth knowing, not worth the screen: folded until asked for.
    return h(
      'details',
      { class: 'finding-group', 'data-severity': group.severity, id: titleId },
      h('summary', null, h('h3', null, `${group.title} (${findings.length})`)),
      list,
    )
  }
  return h(
    'section',
    { class: 'finding-group', 'data-severity': group.severity, 'aria-labelledby': titleId },
    h('h3', { id: titleId }, `${group.title} (${findings.length})`),
    list,
  )
}

function findingItem(f: Finding, lineHref: ((line: number) => string) | null): HTMLElement {
  const where =
    f.line === null
      ? null
      : lineHref
        ? h(
            'a',
            {
              class: 'finding-line',
              href: lineHref(f.line),
              title: `Show line ${f.line} of the HTML source`,
            },
            `line ${f.line}`,
          )
        : h('span', { class: 'finding-line' }, `line ${f.line}`)
  return h(
    'li',
    { class: 'finding', 'data-severity': f.severity, 'data-code': f.code },
    h('p', { class: 'finding-message' }, f.message),
    h('p', { class: 'finding-fix' }, h('span', { class: 'finding-label' }, 'Fix: '), f.fix),
    h(
      'p',
      { class: 'finding-meta' },
      h('span', { class: 'tag' }, f.check),
      ' ',
      h('code', { class: 'finding-code' }, f.code),
      where ? [' · ', where] : null,
    ),
  )
}

function clientTable(prefix: string, clients: ClientScore[]): HTMLElement {
  const used = clients[0]?.used ?? 0
  return h(
    'section',
    { class: 'clients', 'aria-labelledby': `${prefix}-clients-title` },
    h('h3', { id: `${prefix}-clients-title` }, 'Client support'),
    h(
      'p',
      { class: 'hint' },
      used
        ? `Of the ${plural(used, 'HTML and CSS feature')} this email uses that some client lacks (from caniemail):`
        : 'Every client supports everything this email uses (from caniemail).',
    ),
    h(
      'table',
      { class: 'vars client-table', id: `${prefix}-client-table` },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'Client'),
          h('th', { scope: 'col' }, 'Score'),
          h('th', { scope: 'col' }, 'Not supported'),
        ),
      ),
      h(
        'tbody',
        null,
        clients.map((c) =>
          h(
            'tr',
            { 'data-client': c.client },
            h('th', { scope: 'row', title: c.client }, c.name),
            h(
              'td',
              { class: 'score' },
              h(
                'span',
                {
                  class: 'score-value',
                  'data-state': c.score >= 90 ? 'ok' : c.score >= 60 ? 'warning' : 'error',
                },
                `${c.score} %`,
              ),
              h('span', { class: 'visually-hidden' }, ` (${c.supported} of ${c.used})`),
            ),
            h(
              'td',
              null,
              c.unsupported.length
                ? h(
                    'span',
                    { class: 'chips' },
                    c.unsupported.map((u) => h('code', { class: 'chip' }, u)),
                  )
                : h('span', { class: 'muted' }, 'nothing'),
            ),
          ),
        ),
      ),
    ),
  )
}

/** The Checks tab's badge: the report's errors or warnings; none without a report. */
export function showChecksBadge(tabs: HTMLElement | null, report: CheckReport | null): void {
  const summary = report ? checkSummary(report) : null
  setTabBadge(
    tabs,
    'checks',
    summary?.count ?? null,
    summary?.severity ?? 'ok',
    summary?.words ?? '',
  )
}

/** The Checks tab's panel: the report, else why there is none (yet). */
export function checksTab(
  prefix: 'message' | 'template',
  report: CheckReport | null,
  error: string | null,
  lineHref: (line: number) => string,
): HTMLElement {
  return report
    ? checksPanel(prefix, report, lineHref)
    : h(
        'p',
        { class: 'placeholder' },
        error ? `Could not check the ${prefix}: ${error}` : 'Checking…',
      )
}
