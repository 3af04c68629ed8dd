import type { TemplateListItem } from './api.js'
import { h, type Child } from './dom.js'
import { fullTime, timeAgo } from './format.js'

/**
 * An open template's head: the way back (narrow screens), the slug with the list toggle beside
 * it, the description, what it expects and when it changed, then the tab list and the fixture
 * case picker.
 */
export interface TemplateHeadParts {
  backHref: string
  /** The list toggle (wide screens). */
  toggle: HTMLElement
  tabList: HTMLElement
  /** The case the picker shows. */
  selectedCase: string
  onCase(name: string): void
}

export function templateHead(t: TemplateListItem, parts: TemplateHeadParts): Child[] {
  const cases = t.fixtures
  const caseControl = cases.length
    ? h(
        'div',
        { class: 'field' },
        h('label', { for: 'case-select' }, 'Fixture'),
        h(
          'select',
          {
            id: 'case-select',
            onchange: (event: Event) => parts.onCase((event.target as HTMLSelectElement).value),
          },
          cases.map((c) =>
            h(
              'option',
              { value: c.name, selected: c.name === parts.selectedCase },
              c.error ? `${c.name} (invalid)` : c.name,
            ),
          ),
        ),
      )
    : h('p', { class: 'field-static' }, 'No fixture case yet')
  return [
    h(
      'a',
      { class: 'back', href: parts.backHref },
      h('span', { 'aria-hidden': 'true' }, '← '),
      'Templates',
    ),
    h(
      'div',
      { class: 'title-line' },
      h('h2', { id: 'template-title', tabindex: '-1' }, t.slug),
      parts.toggle,
    ),
    t.description ? h('p', { class: 'lede' }, t.description) : null,
    h(
      'dl',
      { class: 'meta' },
      h(
        'div',
        null,
        h('dt', null, 'Expects'),
        h(
          'dd',
          { class: 'chips' },
          t.variables.length
            ? t.variables.map((v) => h('code', { class: 'chip' }, v))
            : 'no variables',
        ),
      ),
      h(
        'div',
        { class: 'meta-updated' },
        h('dt', null, 'Updated'),
        h(
          'dd',
          null,
          h(
            'time',
            { datetime: t.updatedAt, title: fullTime(t.updatedAt), 'data-relative': '' },
            timeAgo(t.updatedAt),
          ),
        ),
      ),
    ),
    h('div', { class: 'toolbar' }, parts.tabList, h('div', { class: 'toolbar-end' }, caseControl)),
  ]
}
