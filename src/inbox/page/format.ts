import type { Address } from './api.js'

/** Formatting for the page. The formatters are made once here and shared: making one costs more than using it. */

/** `Ada <ada@example.com>`, or the bare address. */
export const fullAddress = (a: Address): string => (a.name ? `${a.name} <${a.address}>` : a.address)

/** The name when there is one, else the address. */
export const shortAddress = (a: Address): string => a.name || a.address

export function recipients(list: Address[], max = 3): string {
  const shown = list.slice(0, max).map(shortAddress).join(', ')
  return list.length > max ? `${shown} +${list.length - max}` : shown
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' })
const sameYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })
const otherYear = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
})
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' })
const number = new Intl.NumberFormat()

/** 5,000: one shared formatter (`toLocaleString` makes one per call). */
export const count = (n: number): string => number.format(n)

/** "just now", "3 min. ago", "2 hr. ago", then a date. */
export function timeAgo(iso: string, now = Date.now()): string {
  const then = Date.parse(iso)
  if (Number.isNaN(then)) return iso
  const seconds = Math.round((now - then) / 1000)
  if (seconds < 45) return 'just now'
  if (seconds < 3600) return relative.format(-Math.max(1, Math.round(seconds / 60)), 'minute')
  if (seconds < 86_400) return relative.format(-Math.round(seconds / 3600), 'hour')
  const date = new Date(then)
  return (date.getFullYear() === new Date(now).getFullYear() ? sameYear : otherYear).format(date)
}

export function fullTime(iso: string): string {
  const then = Date.parse(iso)
  return Number.isNaN(then) ? iso : full.format(new Date(then))
}

export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${count(n)} ${n === 1 ? one : many}`
