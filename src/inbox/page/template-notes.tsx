import type { Warning } from './api.js'
import { WarningItems } from './ui.js'

/**
 * The notes above an open template's preview, each said once: the variables the render leaves
 * out (they render empty; a send without them is refused), the other render warnings, and, in
 * the Dark view, that the email has no dark-mode rules at all (so Dark looks like Light).
 */
export interface TemplateNotesProps {
  missing: string[]
  warnings: Warning[]
  /** The Dark view is on and the email has no prefers-color-scheme: dark rules. */
  noDarkRules: boolean
}

/**
 * @example
 * <TemplateNotes missing={['order.total']} warnings={[]} noDarkRules={false} />
 */
export function TemplateNotes({ missing, warnings, noDarkRules }: TemplateNotesProps) {
  // missing_variable warnings say the same as the missing note: shown once, there.
  const others = warnings.filter((w) => w.code !== 'missing_variable')
  if (!missing.length && !others.length && !noDarkRules) return null
  return (
    <div class="notes" id="template-notes">
      {missing.length ? (
        <div class="note note-warn" id="missing-variables" role="note">
          <strong>Missing: </strong>
          {missing.map((p, i) => (
            <span key={p}>
              {i ? ', ' : ''}
              <code>{p}</code>
            </span>
          ))}
          . {missing.length === 1 ? 'It renders' : 'They render'} empty here; a send without{' '}
          {missing.length === 1 ? 'it' : 'them'} is refused.
        </div>
      ) : null}
      {others.length ? (
        <div class="note" role="note">
          <ul class="plain">
            <WarningItems warnings={others} />
          </ul>
        </div>
      ) : null}
      {noDarkRules ? (
        <div class="note" id="dark-hint" role="note">
          <strong>No dark-mode rules: </strong>
          this email has no <code>@media (prefers-color-scheme: dark)</code> styles, so Dark shows
          it as it is in Light (Apple Mail and Outlook for Mac do the same). "Inverted" shows what
          the Gmail and Outlook apps do instead.
        </div>
      ) : null}
    </div>
  )
}
