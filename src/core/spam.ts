import type { SpamReport } from '../checks/spamd-protocol.js'
import type { MessageRecord } from '../store/types.js'
import { toEml } from './eml.js'
import type { EventBus } from './events.js'

/**
 * The spam score (docs/checks.md#spam-score-spamassassin): a stored message, as `GET …/eml`
 * serves it, scored by `--spamassassin`'s spamd when someone asks, once per message. The spamd
 * client is a `SpamScorer` handed in (src/checks/spamd.ts): no I/O here. Nothing of a send waits
 * for it: a message is scored at the first request for its score, never as it arrives.
 */

export type { SpamReport, SpamRule } from '../checks/spamd-protocol.js'

/** Scores RFC 5322 bytes; rejects (with the client's own error) when spamd fails. */
export type SpamScorer = (eml: Uint8Array) => Promise<SpamReport>

/** No `--spamassassin`. */
export class SpamCheckNotConfiguredError extends Error {
  override name = 'SpamCheckNotConfiguredError'
  constructor() {
    super(
      'No spamd is configured: start sendbox with --spamassassin host:port (SENDBOX_SPAMASSASSIN), a SpamAssassin spamd; see docs/checks.md.',
    )
  }
}

export interface SpamScores {
  /**
   * The message's score: spamd's answer for its `.eml`, asked once and kept while the message
   * is (concurrent requests share the one question); a failure is not kept, so the next request
   * asks again. Throws `SpamCheckNotConfiguredError` without `--spamassassin`.
   */
  of(record: MessageRecord): Promise<SpamReport>
  /** Any message's bytes (a template's render), asked each time, never kept. */
  ofEml(eml: Uint8Array): Promise<SpamReport>
}

/**
 * The sandbox's scores, in this process's memory (on a store several processes share, each
 * keeps its own): forgotten with their message (`deleted`, `cleared`), at most `keep` of them.
 *
 * @example
 * const scores = createSpamScores({ events, scorer: (eml) => scoreWithSpamd(address, eml), keep: 5000 })
 * (await scores.of(record)).score // 1.2
 */
export function createSpamScores(deps: {
  events: EventBus
  scorer: SpamScorer | null
  /** The most scores kept (the log's `--max-messages`): the oldest go first. */
  keep: number
}): SpamScores {
  const kept = new Map<string, { project: string; report: Promise<SpamReport> }>()
  // The bus is the sandbox's own and goes with it: no need to unsubscribe. This process's events
  // only: hearing the others' would have the bus read every notice back from the database, and a
  // score kept for a message deleted elsewhere is never asked for again (its lookup is a 404
  // first) and goes with the oldest once `keep` is reached.
  deps.events.subscribe(
    (event) => {
      if (event.type === 'deleted') kept.delete(event.id)
      if (event.type === 'cleared')
        for (const [id, entry] of kept)
          if (event.project === undefined || entry.project === event.project) kept.delete(id)
    },
    { remote: false },
  )
  return {
    of(record) {
      const { scorer } = deps
      if (!scorer) return Promise.reject(new SpamCheckNotConfiguredError())
      const hit = kept.get(record.id)
      if (hit) return hit.report
      const report = scorer(toEml(record))
      kept.set(record.id, { project: record.project, report })
      if (kept.size > deps.keep) kept.delete(kept.keys().next().value as string)
      // A failure is the caller's to answer; the next request asks spamd again.
      report.catch(() => {
        if (kept.get(record.id)?.report === report) kept.delete(record.id)
      })
      return report
    },
    ofEml: (eml) =>
      deps.scorer ? deps.scorer(eml) : Promise.reject(new SpamCheckNotConfiguredError()),
  }
}

/**
 * A render as a message of its template would go out (`toEml`), for scoring a template rather
 * than a stored message: its HTML and text, the subject from the HTML's `<title>` (a send gives
 * its own; a template has none), else the template's name, and example addresses.
 *
 * @example
 * renderEml({ slug: 'welcome', caseName: 'default', html: '<title>Welcome</title>…', text: 'Hi' })
 */
export function renderEml(render: {
  slug: string
  caseName: string | null
  html: string
  text: string
}): Buffer<ArrayBuffer> {
  const { slug, caseName, html, text } = render
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim()
  return toEml({
    id: `render_${slug}${caseName ? `_${caseName}` : ''}`,
    from: { name: 'Sendbox', address: 'sender@example.com' },
    to: [{ name: 'Recipient', address: 'recipient@example.com' }],
    subject: title || slug,
    createdAt: new Date().toISOString(),
    template: slug,
    project: 'render',
    html,
    text,
  })
}
