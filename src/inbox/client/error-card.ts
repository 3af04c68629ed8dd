import type { ExcerptLine, SoftError, SourceProblem } from './api.js'
import { h } from './dom.js'

/**
 * Why a preview failed, in full: what kind of problem, where (file, line, column), the message,
 * and the offending lines of the file with line numbers and a caret under the column, as the
 * server sends them with a soft error. Replaces the frame, so nobody stares at a blank preview.
 */

const TITLES: Record<string, string> = {
  template_invalid: 'This template does not parse',
  render_failed: 'This template fails to render',
  fixture_invalid: 'This fixture is not usable',
  fixture_not_found: 'There is no such fixture case',
  template_not_found: 'There is no such template',
}

const isPlace = (d: unknown): d is SourceProblem =>
  !!d &&
  typeof d === 'object' &&
  ((d as SourceProblem).line !== undefined || (d as SourceProblem).file !== undefined)

/**
 * The card. `lineHref` links a place to a source view at its line (the Liquid tab, for the open
 * template's own file); null where there is none (a partial, a template that does not parse).
 */
export function errorCard(
  error: SoftError,
  lineHref: (place: SourceProblem) => string | null = () => null,
): HTMLElement {
  const places = error.details.filter(isPlace)
  return h(
    'div',
    { class: 'error-panel', id: 'render-error', role: 'alert' },
    h('h3', null, TITLES[error.code] ?? 'The preview failed'),
    // The places repeat the message with where it is; without them, the message says it all.
    places.length
      ? h(
          'ul',
          { class: 'plain error-places' },
          places.map((place) => placeItem(place, error.message, lineHref(place))),
        )
      : h('p', { class: 'error-message' }, error.message),
    h(
      'p',
      { class: 'hint' },
      'Fix the file and save: this panel updates by itself. ',
      h('code', null, 'npx sendbox check'),
      ' lists every problem.',
    ),
  )
}

function placeItem(place: SourceProblem, fallback: string, href: string | null): HTMLElement {
  // The path as `sendbox check` prints it, when the server gave it: the same place reads the same.
  const { line, column } = place
  const file = place.path ?? place.file ?? ''
  return h(
    'li',
    null,
    h(
      'p',
      { class: 'error-where' },
      h(
        'code',
        { class: 'error-location' },
        [file, line !== undefined ? `:${line}` : '', column !== undefined ? `:${column}` : ''].join(
          '',
        ),
      ),
      line !== undefined
        ? h(
            'span',
            { class: 'error-linecol' },
            ` line ${line}${column !== undefined ? `, column ${column}` : ''}`,
          )
        : null,
    ),
    h('p', { class: 'error-message' }, place.message || fallback),
    place.excerpt?.length && line !== undefined
      ? excerptView(place.excerpt, line, column ?? 1, file)
      : null,
    href && line !== undefined
      ? h('p', { class: 'error-link' }, h('a', { href }, `Show line ${line} in the Liquid source`))
      : null,
  )
}

/**
 * The lines around the problem, numbered (CSS counters from data-line, as in the source views:
 * copying copies no numbers), the offending one marked, and a caret under its column.
 */
export function excerptView(
  lines: ExcerptLine[],
  at: number,
  column: number,
  file: string,
): HTMLElement {
  const first = lines[0]!.line
  const last = lines.at(-1)!.line
  return h(
    'pre',
    {
      class: 'code source-lines excerpt',
      tabindex: '0',
      'aria-label': `${file}, lines ${first} to ${last}; the problem is on line ${at}, column ${column}`,
    },
    lines.map(({ line, text }) => [
      h('span', { class: line === at ? 'line is-target' : 'line', 'data-line': line }, text, '\n'),
      line === at
        ? h('span', { class: 'line caret', 'aria-hidden': 'true' }, caretUnder(text, column), '\n')
        : null,
    ]),
  )
}

/** Spaces (and the line's own tabs, so it lines up) up to the column, then `^`. */
export function caretUnder(text: string, column: number): string {
  return `${[...text.slice(0, Math.max(0, column - 1))].map((c) => (c === '\t' ? '\t' : ' ')).join('')}^`
}
