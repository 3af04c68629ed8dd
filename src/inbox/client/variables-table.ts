import type { TemplateDetail } from './api.js'
import { jsonBlock } from './components.js'
import { h } from './dom.js'

/**
 * The Variables tab: what the template expects (each name whole, whether a send must supply it
 * and which fields under it, the description from front matter), then the values of the render
 * on screen.
 */
export function variablesTable(
  detail: TemplateDetail | null,
  names: string[],
  values: Record<string, unknown> | null,
  valuesTitle: string,
): HTMLElement {
  const declared = detail?.declared ?? {}
  const required = detail?.required ?? []
  return h('div', { class: 'details' }, [
    h('h3', null, 'Expected variables'),
    names.length
      ? h(
          'table',
          { class: 'vars vars-expected' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              h('th', { scope: 'col' }, 'Name'),
              h('th', { scope: 'col' }, 'Required'),
              h('th', { scope: 'col' }, 'Description'),
            ),
          ),
          h(
            'tbody',
            null,
            names.map((name) =>
              h(
                'tr',
                null,
                h('th', { scope: 'row' }, h('code', { class: 'var-name' }, name)),
                h('td', null, requirement(name, required)),
                h('td', null, declared[name]?.description ?? ''),
              ),
            ),
          ),
        )
      : h('p', null, 'This template reads no variables.'),
    values ? [h('h3', null, valuesTitle), jsonBlock(values)] : null,
  ])
}

/** "required", "optional", or the required fields under the name: `.id`, `.items` (not the name again). */
function requirement(name: string, required: string[]): (Node | string)[] {
  if (required.includes(name)) return ['required']
  const fields = required.filter((p) => p.startsWith(`${name}.`)).map((p) => p.slice(name.length))
  if (!fields.length) return [h('span', { class: 'muted' }, 'optional')]
  return [
    'required: ',
    ...fields.flatMap((f, i) => [i ? ' ' : '', h('code', { class: 'chip' }, f)]),
  ]
}
