import type { ExcerptLine, SoftError, SourceProblem } from './api.js'

/**
 * Why a preview failed, in full: what kind of problem, where (file, line, column), the message,
 * and the offending lines of the file with line numbers and a caret under the column, as the
 * server sends them with a soft error. Replaces the frame, so nobody stares at a blank preview.
 */

const TITLES: Readonly<Record<string, string>> = {
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
 *
 * @example
 * <ErrorCard error={outcome.error} lineHref={(place) => null} />
 */
export function ErrorCard({
  error,
  lineHref = () => null,
}: {
  error: SoftError
  lineHref?: (place: SourceProblem) => string | null
}) {
  const places = error.details.filter(isPlace)
  return (
    <div class="error-panel" id="render-error" role="alert">
      <h3>{TITLES[error.code] ?? 'The preview failed'}</h3>
      {/* The places repeat the message with where it is; without them, the message says it all. */}
      {places.length ? (
        <ul class="plain error-places">
          {places.map((place, i) => (
            <PlaceItem key={i} place={place} fallback={error.message} href={lineHref(place)} />
          ))}
        </ul>
      ) : (
        <p class="error-message">{error.message}</p>
      )}
      <p class="hint">
        Fix the file and save: this panel updates by itself. <code>npx sendbox check</code> lists
        every problem.
      </p>
    </div>
  )
}

function PlaceItem({
  place,
  fallback,
  href,
}: {
  place: SourceProblem
  fallback: string
  href: string | null
}) {
  // The path as `sendbox check` prints it, when the server gave it: the same place reads the same.
  const { line, column } = place
  const file = place.path ?? place.file ?? ''
  return (
    <li>
      <p class="error-where">
        <code class="error-location">
          {[
            file,
            line !== undefined ? `:${line}` : '',
            column !== undefined ? `:${column}` : '',
          ].join('')}
        </code>
        {line !== undefined ? (
          <span class="error-linecol">
            {` line ${line}${column !== undefined ? `, column ${column}` : ''}`}
          </span>
        ) : null}
      </p>
      <p class="error-message">{place.message || fallback}</p>
      {place.excerpt?.length && line !== undefined ? (
        <Excerpt lines={place.excerpt} at={line} column={column ?? 1} file={file} />
      ) : null}
      {href && line !== undefined ? (
        <p class="error-link">
          <a href={href}>Show line {line} in the Liquid source</a>
        </p>
      ) : null}
    </li>
  )
}

/**
 * The lines around the problem, numbered (CSS counters from data-line, as in the source views:
 * copying copies no numbers), the offending one marked, and a caret under its column.
 */
function Excerpt({
  lines,
  at,
  column,
  file,
}: {
  lines: ExcerptLine[]
  at: number
  column: number
  file: string
}) {
  const first = lines[0]!.line
  const last = lines.at(-1)!.line
  return (
    <pre
      class="code source-lines excerpt"
      tabIndex={0}
      role="region"
      aria-label={`${file}, lines ${first} to ${last}; the problem is on line ${at}, column ${column}`}
    >
      {lines.map(({ line, text }) => [
        <span key={line} class={line === at ? 'line is-target' : 'line'} data-line={line}>
          {text}
          {'\n'}
        </span>,
        line === at ? (
          <span key="caret" class="line caret" aria-hidden="true">
            {caretUnder(text, column)}
            {'\n'}
          </span>
        ) : null,
      ])}
    </pre>
  )
}

/**
 * Spaces (and the line's own tabs, so it lines up) up to the column, then `^`.
 *
 * @example
 * caretUnder('\tif x', 3) // '\t ^'
 */
export function caretUnder(text: string, column: number): string {
  return `${[...text.slice(0, Math.max(0, column - 1))].map((c) => (c === '\t' ? '\t' : ' ')).join('')}^`
}
