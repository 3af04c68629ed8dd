/**
 * A fixed clock for a render: what makes a snapshot the same bytes on any day, in any time zone
 * and under any locale (docs/snapshots.md). liquidjs 10.30 reads the time for `"now"` and `"today"`
 * from `Date.now()` inside its date filters, formats in the process's time zone, names months in
 * the process's locale, and parses a date without a zone (`"2026-03-01 10:00"`) as local time.
 * So a render on a fixed clock:
 *
 * - gives the date filters (`date`, `date_to_xmlschema`, `date_to_rfc822`, `date_to_string`,
 *   `date_to_long_string`) the clock's instant for `"now"`/`"today"`, and its locale;
 * - runs with `TZ` set to the clock's zone, so formatting and zone-less parsing agree
 *   everywhere. A render is synchronous (`renderSync`), so no other code runs while `TZ` is
 *   changed; it is put back before the render returns. Measured: 86 µs for the two changes
 *   (Node resets its time-zone cache on each), against ~1 ms for a render and its text part.
 *
 * A render without a clock (a send, a preview) gets the process's locale, as liquidjs would give
 * it, but found at the first date filter rather than as the engine is made: liquidjs asks
 * `Intl.DateTimeFormat` for it in its constructor, and that first Intl object loads ICU's data,
 * 24-29 ms of CPU (a loaded 2-core machine) of every start until its first answer, where no
 * example template formats a date.
 */
import type { Liquid } from 'liquidjs'

export interface RenderClock {
  /** The instant `"now"` and `"today"` stand for, in ms since the epoch. */
  now: number
  /** An IANA zone for formatting and for reading dates without a zone; `UTC` for snapshots. */
  timeZone: string
  /** The locale of month and day names (`%b`, `%A`). */
  locale: string
}

/** The date filters that read "now", the zone or the locale. */
const DATE_FILTERS = [
  'date',
  'date_to_xmlschema',
  'date_to_rfc822',
  'date_to_string',
  'date_to_long_string',
] as const

/**
 * Where an engine keeps the clock of the render under way (none between renders), and the
 * process's locale once a date filter has asked for it.
 */
export interface ClockHolder {
  clock: RenderClock | undefined
  processLocale?: string
}

/**
 * The locale liquidjs picks when given none (its `normalize`): the process's, as Intl resolves it.
 *
 * @example processLocale() // 'en-US'
 */
export function processLocale(): string {
  return Intl.DateTimeFormat().resolvedOptions().locale ?? 'en-US'
}

/**
 * What an engine is made with in place of the locale: the date filters (the only readers of
 * liquidjs's `locale` option) are given the real one by `useRenderClock`, so this is never read.
 */
export const LOCALE_SET_BY_THE_DATE_FILTERS = 'en-US'

type FilterThis = { context: { opts: object } }
type FilterFn = (this: FilterThis, value: unknown, ...args: unknown[]) => unknown

/**
 * Wraps the date filters of an engine so that they read `holder.clock` while one is set, and
 * the process's locale (found at their first use) otherwise.
 *
 * @example
 * const holder: ClockHolder = { clock: undefined }
 * useRenderClock(liquid, holder)
 */
export function useRenderClock(liquid: Liquid, holder: ClockHolder): void {
  for (const name of DATE_FILTERS) {
    const registered = liquid.filters[name] as FilterFn | { handler: FilterFn } | undefined
    const original = typeof registered === 'function' ? registered : registered?.handler
    if (!original) continue
    liquid.registerFilter(name, function (this: FilterThis, value: unknown, ...args: unknown[]) {
      const clock = holder.clock
      const locale = clock ? clock.locale : (holder.processLocale ??= processLocale())
      const input = clock && (value === 'now' || value === 'today') ? new Date(clock.now) : value
      // The filter reads the locale from the context's options: a view of them with this one.
      const opts = { ...this.context.opts, locale }
      const context = Object.create(this.context, { opts: { value: opts } }) as object
      return original.call({ ...this, context } as FilterThis, input, ...args)
    })
  }
}

/**
 * Runs a synchronous render with `holder.clock` set and `TZ` at the clock's zone, then puts
 * both back.
 *
 * @example
 * const html = onClock(holder, clock, () => liquid.renderSync(parsed, scope))
 */
export function onClock<T>(
  holder: ClockHolder,
  clock: RenderClock | undefined,
  render: () => T,
): T {
  if (!clock) return render()
  const savedZone = process.env.TZ
  holder.clock = clock
  process.env.TZ = clock.timeZone
  try {
    return render()
  } finally {
    holder.clock = undefined
    if (savedZone === undefined) delete process.env.TZ
    else process.env.TZ = savedZone
  }
}

/** The instant snapshots are rendered at unless told otherwise: noon UTC, so no zone shifts its day. */
export const SNAPSHOT_NOW = '2026-01-01T12:00:00.000Z'

/**
 * The clock of snapshot renders: `now` (an ISO time; default SNAPSHOT_NOW), UTC, en-US.
 *
 * @example snapshotClock().now // 1767268800000
 */
export function snapshotClock(now: string = SNAPSHOT_NOW): RenderClock {
  return { now: Date.parse(now), timeZone: 'UTC', locale: 'en-US' }
}
