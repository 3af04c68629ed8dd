import type { RejectionsModel } from './rejections-model.js'
import { RelativeTime } from './ui.js'

/**
 * Recent rejected sends, folded away above the message list ("2 sends rejected recently"),
 * hidden while there is none.
 *
 * @example
 * <Rejections model={messages.rejections} />
 */
export function Rejections({ model }: { model: RejectionsModel }) {
  const total = model.total.value
  const items = model.items.value
  return (
    <details class="rejections" id="rejections" hidden={total === 0}>
      <summary class="rejections-summary">
        {total} {total === 1 ? 'send' : 'sends'} rejected recently
      </summary>
      <ul class="rejections-list" aria-label="Rejected sends">
        {items.map((r, i) => {
          const what = [
            r.template,
            r.to?.length
              ? `→ ${r.to.slice(0, 2).join(', ')}${r.to.length > 2 ? ` +${r.to.length - 2}` : ''}`
              : null,
          ]
            .filter(Boolean)
            .join(' ')
          return (
            <li class="rejection" key={`${r.at} ${i}`}>
              <span class="rejection-top">
                <span class="tag rejection-code">
                  {r.status} {r.code}
                </span>
                <RelativeTime iso={r.at} class="item-time" />
              </span>
              {what ? <span class="rejection-what">{what}</span> : null}
              <span class="rejection-message">{r.message}</span>
            </li>
          )
        })}
      </ul>
    </details>
  )
}
