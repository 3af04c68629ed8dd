import type { ComponentChildren, RefObject } from 'preact'
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks'
import type { MessageStatus, Warning } from './api.js'
import { usePage } from './context.js'
import { statusWords } from './delivery-model.js'
import type { TabSpec } from './detail-route.js'
import { fullTime, timeAgo } from './format.js'

/**
 * Small pieces every view uses: status badges, relative times, JSON and source blocks, the
 * ARIA tab list. Every string is rendered as text (Preact never parses it as markup): a
 * subject, a name or a variable can only ever show up as text.
 */

/**
 * A status as a coloured pill with words (never colour alone).
 *
 * @example
 * <StatusBadge status="bounced" /> // <span class="status-badge" data-status="bounced">Bounced</span>
 */
export function StatusBadge({ status, label }: { status: MessageStatus | string; label?: string }) {
  const words = statusWords(status)
  return (
    <span class="status-badge" data-status={status} title={words.title}>
      {label ?? words.label}
    </span>
  )
}

/**
 * A time as people say it ("3 min. ago"), the full date as its tooltip; it follows the page's
 * clock, so it ages without a reload.
 *
 * @example
 * <RelativeTime iso={message.createdAt} class="item-time" />
 */
export function RelativeTime({ iso, class: className }: { iso: string; class?: string }) {
  const now = usePage().clock.value
  return (
    <time class={className} dateTime={iso} title={fullTime(iso)}>
      {timeAgo(iso, now)}
    </time>
  )
}

/**
 * One term of a `<dl>` and what it says, grouped in a `<div>` as the styles lay them out.
 *
 * @example
 * <dl class="meta"><Term term="From"><AddressView a={m.from} /></Term></dl>
 */
export function Term({
  term,
  class: className,
  children,
}: {
  term: string
  /** The `<dd>`'s class. */
  class?: string
  children: ComponentChildren
}) {
  return (
    <div>
      <dt>{term}</dt>
      <dd class={className}>{children}</dd>
    </div>
  )
}

/** A JSON value, pretty-printed, as text. */
export function JsonBlock({ value }: { value: unknown }) {
  return (
    <pre class="code" tabIndex={0}>
      {JSON.stringify(value, null, 2) ?? 'undefined'}
    </pre>
  )
}

/** Render warnings, as list items: the code, then the message. */
export function WarningItems({ warnings }: { warnings: Warning[] }) {
  return (
    <>
      {warnings.map((w) => (
        <li key={`${w.code} ${w.message}`}>
          <code>{w.code}</code> {w.message}
        </li>
      ))}
    </>
  )
}

/** A centred message where content will be (loading, nothing selected, gone). */
/**
 * A `<select>` of `[value, label]` options that hands the picked value on; `children` come
 * first (an "Any" option, or the one option there is when there is nothing to pick).
 *
 * @example
 * <Select id="case-select" value={name} options={[['ada', 'ada']]} onPick={setCase} />
 */
export function Select({
  options,
  onPick,
  children,
  ...attributes
}: {
  id: string
  value: string
  options: ReadonlyArray<readonly [string, string]>
  onPick: (value: string) => void
  class?: string
  disabled?: boolean
  children?: ComponentChildren
}) {
  return (
    <select {...attributes} onChange={(e) => onPick((e.target as HTMLSelectElement).value)}>
      {children}
      {options.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </select>
  )
}

export function Placeholder({ children }: { children: ComponentChildren }) {
  return <div class="placeholder">{children}</div>
}

/** Where ←/→ already mean something: text fields, sliders, splitters, other tab lists. */
const OWN_ARROWS =
  '[role="separator"], [role="slider"], [role="tablist"], [role="listbox"], [role="radiogroup"], [role="menu"], input[type="range"]'

/**
 * Where a key was pressed: inside a shadow root (the code editor) the document sees the host,
 * the composed path has the element itself.
 */
export const keyTarget = (event: Event): EventTarget | null =>
  event.composedPath()[0] ?? event.target

/** True when a key comes from a field the user types in (an input, a select, the code editor). */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  return (
    target.isContentEditable ||
    target instanceof HTMLInputElement ||
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement
  )
}

export interface TabsProps {
  /** Id prefix: `message` gives `message-tab-text` and the panel `message-panel`. */
  prefix: string
  label: string
  tabs: readonly TabSpec[]
  selected: string
  onSelect(tab: string): void
  /** A small count after a tab's label (the checks' errors and warnings). */
  badges?: Readonly<Record<string, ComponentChildren>>
  /** ←/→ switch tabs from anywhere in the page, not only on the tab list (but in fields, sliders, splitters). */
  arrowsAnywhere?: boolean
}

/**
 * An ARIA tab list: one tab in the Tab order, ←/→/Home/End move between tabs and select them.
 * The single panel (`<prefix>-panel`) is labelled by the selected tab.
 *
 * @example
 * <Tabs prefix="message" label="Message views" tabs={TABS} selected={tab} onSelect={setTab} />
 */
export function Tabs({
  prefix,
  label,
  tabs,
  selected,
  onSelect,
  badges,
  arrowsAnywhere,
}: TabsProps) {
  const list = useRef<HTMLDivElement>(null)
  const step = (from: number, to: number) => {
    const next = tabs[(to + tabs.length) % tabs.length]
    if (!next || from === to) return
    list.current?.querySelector<HTMLElement>(`[data-tab="${next.id}"]`)?.focus()
    onSelect(next.id)
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.id === (event.target as HTMLElement).dataset.tab)
    if (at === -1) return
    const to = {
      ArrowRight: at + 1,
      ArrowLeft: at - 1,
      Home: 0,
      End: tabs.length - 1,
    }[event.key]
    if (to === undefined) return
    event.preventDefault()
    step(at, to)
  }
  useArrowsAnywhere(list, !!arrowsAnywhere, { selected, onSelect, tabs })
  useRevealed(list, '[aria-selected="true"]', selected)
  useScrollCue(list)
  return (
    <div class="tabs" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          id={`${prefix}-tab-${tab.id}`}
          aria-controls={`${prefix}-panel`}
          aria-selected={tab.id === selected ? 'true' : 'false'}
          tabIndex={tab.id === selected ? 0 : -1}
          data-tab={tab.id}
          onClick={() => onSelect(tab.id)}
        >
          {tab.label}
          {badges?.[tab.id]}
        </button>
      ))}
    </div>
  )
}

/**
 * ←/→ switch these tabs from anywhere while they are on screen (their view is open, with an
 * item), except where the arrows have a use of their own (fields, sliders, splitters).
 */
function useArrowsAnywhere(
  list: RefObject<HTMLDivElement | null>,
  on: boolean,
  props: Pick<TabsProps, 'selected' | 'onSelect' | 'tabs'>,
): void {
  const current = useRef(props)
  current.current = props
  useEffect(() => {
    if (!on) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return
      if (
        event.defaultPrevented ||
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        event.shiftKey
      )
        return
      const element = list.current
      if (!element?.isConnected || element.getClientRects().length === 0) return
      if (document.querySelector('dialog[open]')) return
      const origin = keyTarget(event)
      const target = origin instanceof Element ? origin : null
      if (isTyping(target) || target?.closest(OWN_ARROWS)) return
      event.preventDefault()
      const { selected, onSelect, tabs } = current.current
      const at = tabs.findIndex((t) => t.id === selected)
      const next = tabs[(at + (event.key === 'ArrowRight' ? 1 : -1) + tabs.length) % tabs.length]
      if (next) onSelect(next.id)
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [on])
}

/**
 * At 390 px a row of tabs or sections is wider than the screen and scrolls sideways: the one
 * that is current is scrolled into the row whole (sideways only: the page does not move), when
 * it changes, when the row first shows, and when an item's size changes (a count or a badge
 * that arrives later moves the ones after it).
 *
 * @example useRevealed(list, '[aria-selected="true"]', selected)
 */
export function useRevealed(
  row: { current: HTMLElement | null },
  selector: string,
  key: unknown,
): void {
  useLayoutEffect(() => {
    const element = row.current
    if (!element) return
    const reveal = () => {
      const item = element.querySelector<HTMLElement>(selector)
      if (!item || element.scrollWidth <= element.clientWidth) return
      const box = element.getBoundingClientRect()
      const at = item.getBoundingClientRect()
      if (at.left < box.left) element.scrollLeft -= box.left - at.left + 16
      else if (at.right > box.right) element.scrollLeft += at.right - box.right + 16
    }
    reveal()
    const observer = new ResizeObserver(reveal)
    for (const child of element.children) observer.observe(child)
    return () => observer.disconnect()
  }, [key])
}

/**
 * A row that scrolls sideways shows that it does: `data-more` names the sides with more beyond
 * them (`start`, `end`, both, or none), and the stylesheet draws an arrow over a fading edge
 * there. Kept up to date as the row scrolls and as its size or its items' sizes change. A data
 * attribute rather than a style, so that the page's strict CSP (no inline style) has nothing to
 * refuse.
 *
 * @example useScrollCue(row)
 */
export function useScrollCue(row: { current: HTMLElement | null }): void {
  useLayoutEffect(() => {
    const element = row.current
    if (!element) return
    const update = () => {
      const left = element.scrollLeft
      const more = [
        left > 1 ? 'start' : '',
        left < element.scrollWidth - element.clientWidth - 1 ? 'end' : '',
      ].filter(Boolean)
      if (more.length) element.dataset.more = more.join(' ')
      else delete element.dataset.more
    }
    update()
    element.addEventListener('scroll', update, { passive: true })
    const observer = new ResizeObserver(update)
    observer.observe(element)
    for (const child of element.children) observer.observe(child)
    return () => {
      element.removeEventListener('scroll', update)
      observer.disconnect()
    }
  }, [])
}

/** A small count on a tab, with words for screen readers. */
export function TabBadge({
  count,
  severity,
  words,
}: {
  count: number
  severity: 'error' | 'warning' | 'ok'
  words: string
}) {
  return (
    <span class="tab-badge" data-severity={severity}>
      <span aria-hidden="true">{count}</span>
      <span class="visually-hidden">, {words}</span>
    </span>
  )
}

/**
 * Source text, one element per line so a line can be pointed at (`line`, 1-based; the checks
 * link to it), the marked line brought into sight with the keyboard on the source. The
 * numbers are CSS counters: copying the source copies no numbers.
 *
 * @example
 * <SourceView text={record.html} line={4} label="The HTML source" />
 */
export function SourceView({
  text,
  line,
  label,
}: {
  text: string
  line: number | null
  label: string
}) {
  const pre = useRef<HTMLPreElement>(null)
  const lines = text.split('\n')
  useLayoutEffect(() => {
    const target = line ? pre.current?.querySelector<HTMLElement>(`[data-line="${line}"]`) : null
    if (!target) return
    pre.current?.focus({ preventScroll: true })
    target.scrollIntoView({ block: 'center' })
  }, [line, text])
  return (
    <pre class="code source source-lines" tabIndex={0} role="region" aria-label={label} ref={pre}>
      {lines.map((content, i) => (
        <span key={i} class={i + 1 === line ? 'line is-target' : 'line'} data-line={i + 1}>
          {content}
          {i < lines.length - 1 ? '\n' : ''}
        </span>
      ))}
    </pre>
  )
}
