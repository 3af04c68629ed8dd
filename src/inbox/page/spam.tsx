import type { SpamReport } from './api.js'
import type { SpamModel } from './spam-model.js'

/**
 * The Checks tab's spam score: SpamAssassin's score of the message against spamd's threshold,
 * and each rule that fired with its points and description; without `--spamassassin`, how to
 * turn it on.
 */

const points = (score: number) => `${score > 0 ? '+' : ''}${score.toFixed(1)}`

export function SpamBlock({ prefix, model }: { prefix: string; model: SpamModel }) {
  const spam = model.score.value
  const titleId = `${prefix}-spam-title`
  return (
    <section class="spam" id={`${prefix}-spam`} aria-labelledby={titleId} data-state={spam.state}>
      <h3 id={titleId}>Spam score</h3>
      {spam.state === 'ready' ? (
        <SpamScore prefix={prefix} report={spam.report} />
      ) : spam.state === 'off' ? (
        <p class="hint">
          Not scored: start sendbox with <code>--spamassassin host:port</code> (or{' '}
          <code>SENDBOX_SPAMASSASSIN</code>), a SpamAssassin <code>spamd</code>, to see the score
          SpamAssassin's rules give this message and which rules fired.
        </p>
      ) : spam.state === 'failed' ? (
        <p class="hint" role="status">
          Could not score it: {spam.message}{' '}
          <button type="button" class="link-button" onClick={() => void model.load(spam.id)}>
            Try again
          </button>
        </p>
      ) : (
        <p class="hint" role="status">
          Asking SpamAssassin…
        </p>
      )}
    </section>
  )
}

function SpamScore({ prefix, report }: { prefix: string; report: SpamReport }) {
  const { score, threshold, isSpam, rules } = report
  const verdict = isSpam
    ? 'Spam: at or over the threshold, most filters would file it as junk.'
    : score >= threshold * 0.6
      ? 'Under the threshold, but not by much.'
      : 'Well under the threshold.'
  const state = isSpam ? 'error' : score >= threshold * 0.6 ? 'warning' : 'ok'
  return (
    <>
      <p class="size-line" data-state={state}>
        <meter
          min={0}
          max={threshold}
          low={threshold * 0.6}
          high={threshold - 0.01}
          optimum={0}
          value={Math.max(0, Math.min(score, threshold))}
          aria-labelledby={`${prefix}-spam-title`}
          aria-describedby={`${prefix}-spam-text`}
        />
        <span id={`${prefix}-spam-text`}>
          <strong>{score.toFixed(1)}</strong> of SpamAssassin's threshold {threshold.toFixed(1)}.{' '}
          {verdict}
        </span>
      </p>
      {rules.length ? (
        <table class="spam-rules" aria-label="The SpamAssassin rules that fired, highest first">
          <thead>
            <tr>
              <th scope="col">Points</th>
              <th scope="col">Rule</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.name} data-rule={rule.name}>
                <td class="spam-points" data-sign={rule.score > 0 ? 'plus' : 'none'}>
                  {points(rule.score)}
                </td>
                <td>
                  <code>{rule.name}</code>
                  <span class="spam-description">{rule.description}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="hint">No rule fired.</p>
      )}
    </>
  )
}
