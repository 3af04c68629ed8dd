import type { Warning } from './api.js'
import { warningItems } from './components.js'
import { h, replace } from './dom.js'

/**
 * The notes above an open template's tabs, each said once: the variables the render leaves out
 * (they render empty; a send without them is refused), the other render warnings, and, in the
 * Dark view, that the email has no dark-mode rules at all (so Dark looks like Light).
 */

export interface TemplateNotes {
  missing: string[]
  warnings: Warning[]
  /** The Dark view is on and the email has no prefers-color-scheme: dark rules. */
  noDarkRules: boolean
}

/** Whether an email has rules for dark mode (what Apple Mail and Outlook for Mac apply). */
export const hasDarkRules = (html: string): boolean => /prefers-color-scheme\s*:\s*dark/i.test(html)

export function showTemplateNotes(
  container: HTMLElement,
  { missing, warnings, noDarkRules }: TemplateNotes,
): void {
  // missing_variable warnings say the same as the missing note: shown once, there.
  const others = warnings.filter((w) => w.code !== 'missing_variable')
  replace(
    container,
    missing.length
      ? h(
          'div',
          { class: 'note note-warn', id: 'missing-variables', role: 'note' },
          h('strong', null, 'Missing: '),
          missing.map((p, i) => [i ? ', ' : '', h('code', null, p)]),
          `. ${missing.length === 1 ? 'It renders' : 'They render'} empty here; a send without ${missing.length === 1 ? 'it' : 'them'} is refused.`,
        )
      : null,
    others.length
      ? h('div', { class: 'note', role: 'note' }, h('ul', { class: 'plain' }, warningItems(others)))
      : null,
    noDarkRules
      ? h(
          'div',
          { class: 'note', id: 'dark-hint', role: 'note' },
          h('strong', null, 'No dark-mode rules: '),
          'this email has no ',
          h('code', null, '@media (prefers-color-scheme: dark)'),
          ' styles, so Dark shows it as it is in Light (Apple Mail and Outlook for Mac do the same). "Inverted" shows what the Gmail and Outlook apps do instead.',
        )
      : null,
  )
}
