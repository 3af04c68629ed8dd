import { isPlainObject } from '../lib/json.js'
import type { FieldProblem, Parsed } from '../lib/problems.js'

/**
 * Fault injection (CONTRACT §6): make the next n matching sends fail the way the real service
 * can, so an application's retry and error paths can be tested. Faulted sends are not stored.
 */

export const FAULT_STATUSES = [429, 500, 502, 503] as const

/** At most this many faults are armed at once: a test suite needs a handful, not thousands. */
export const MAX_ARMED_FAULTS = 100
/** Longest `match.template` (a slug's own limit) and `match.to` (a long address with its name). */
export const MAX_MATCH_LENGTH = { template: 128, to: 320 } as const

/** `arm` with MAX_ARMED_FAULTS already armed. */
export class FaultLimitError extends Error {
  override name = 'FaultLimitError'
  readonly code = 'too_many_faults'
  constructor() {
    super(`${MAX_ARMED_FAULTS} faults are armed already, the most sendbox keeps; disarm them (DELETE /_sandbox/api/faults) or let them count down first.`)
  }
}
export type FaultStatus = (typeof FAULT_STATUSES)[number]

export interface FaultMatch {
  /** Exact template slug. */
  template?: string
  /** Case-insensitive substring of any recipient, like the inspector's `to` filter. */
  to?: string
}

export interface FaultInput {
  status: FaultStatus
  /** How many matching sends fail. Default 1. */
  count?: number
  match?: FaultMatch
  /** Seconds for `Retry-After` on a 429. Default 1. */
  retryAfter?: number
}

export interface Fault {
  id: string
  status: FaultStatus
  /** Sends still to fail. */
  remaining: number
  match: FaultMatch
  retryAfter: number
  createdAt: string
}

export interface SendFacts {
  template: string
  /** Recipients as given (`Name <a@b.c>` or bare). */
  to: string[]
}

export interface FaultRegistry {
  /** Throws FaultLimitError when MAX_ARMED_FAULTS are armed. */
  arm(input: FaultInput): Fault
  list(): Fault[]
  /** Disarms all; returns how many were armed. */
  clear(): number
  /** The first armed fault matching this send, counted down (and removed at zero). */
  take(send: SendFacts): Fault | undefined
}

/**
 * Validates a fault the way `POST /_sandbox/api/faults` and `sandbox.fail()` both take it,
 * listing every problem at once.
 *
 * @example
 * parseFaultInput({ status: 503, count: 2 })  // { ok: true, value: { status: 503, count: 2, retryAfter: 1, match: {} } }
 * parseFaultInput({ status: 418 })            // { ok: false, problems: [{ field: 'status', … }] }
 */
export function parseFaultInput(body: unknown): Parsed<FaultInput> {
  const problems: FieldProblem[] = []
  const input = isPlainObject(body) ? body : {}
  if (input !== body) problems.push({ field: '', code: 'invalid_type', message: 'The body must be a JSON object.' })
  if (!isFaultStatus(input.status)) problems.push({ field: 'status', code: 'invalid_value', message: `status must be one of ${FAULT_STATUSES.join(', ')}.` })
  const count = input.count ?? 1
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) problems.push({ field: 'count', code: 'invalid_value', message: 'count must be a whole number of at least 1.' })
  const retryAfter = input.retryAfter ?? 1
  if (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0) problems.push({ field: 'retryAfter', code: 'invalid_value', message: 'retryAfter must be a whole number of seconds.' })
  const match = input.match ?? {}
  if (!isPlainObject(match)) problems.push({ field: 'match', code: 'invalid_type', message: 'match must be an object with template and/or to.' })
  else {
    for (const key of ['template', 'to'] as const) {
      const value = match[key]
      if (value !== undefined && typeof value !== 'string') problems.push({ field: `match.${key}`, code: 'invalid_type', message: `match.${key} must be a string.` })
      else if (typeof value === 'string' && value.length > MAX_MATCH_LENGTH[key]) problems.push({ field: `match.${key}`, code: 'too_long', message: `match.${key} must be at most ${MAX_MATCH_LENGTH[key]} characters.` })
    }
    for (const key of Object.keys(match)) if (key !== 'template' && key !== 'to') problems.push({ field: `match.${key}`, code: 'unknown_field', message: `Unknown field "match.${key}"; match takes template and to.` })
  }
  for (const key of Object.keys(input)) {
    if (!['status', 'count', 'match', 'retryAfter'].includes(key)) problems.push({ field: key, code: 'unknown_field', message: `Unknown field "${key}"; a fault takes status, count, match and retryAfter.` })
  }
  if (problems.length) return { ok: false, problems }
  const m = match as { template?: string; to?: string }
  return {
    ok: true,
    value: {
      status: input.status as FaultStatus,
      count: count as number,
      retryAfter: retryAfter as number,
      match: { ...(m.template !== undefined ? { template: m.template } : {}), ...(m.to !== undefined ? { to: m.to } : {}) },
    },
  }
}

export function isFaultStatus(value: unknown): value is FaultStatus {
  return FAULT_STATUSES.includes(value as FaultStatus)
}

/** `sandbox_fault_503…` → 503: lets an environment variable alone arm a fault. */
export function faultFromToken(token: string): FaultStatus | undefined {
  const match = /^sandbox_fault_(\d{3})/.exec(token)
  const status = match ? Number(match[1]) : undefined
  return isFaultStatus(status) ? status : undefined
}

function matches(fault: Fault, send: SendFacts): boolean {
  if (fault.match.template !== undefined && fault.match.template !== send.template) return false
  if (fault.match.to !== undefined) {
    const needle = fault.match.to.toLowerCase()
    if (!send.to.some((to) => to.toLowerCase().includes(needle))) return false
  }
  return true
}

export function createFaultRegistry(): FaultRegistry {
  let faults: Fault[] = []
  let seq = 0
  return {
    arm(input) {
      if (faults.length >= MAX_ARMED_FAULTS) throw new FaultLimitError()
      const fault: Fault = {
        id: `fault_${++seq}`,
        status: input.status,
        remaining: input.count ?? 1,
        match: { ...input.match },
        retryAfter: input.retryAfter ?? 1,
        createdAt: new Date().toISOString(),
      }
      faults.push(fault)
      return { ...fault }
    },
    list: () => faults.map((f) => ({ ...f, match: { ...f.match } })),
    clear() {
      const n = faults.length
      faults = []
      return n
    },
    take(send) {
      const fault = faults.find((f) => matches(f, send))
      if (!fault) return undefined
      fault.remaining -= 1
      if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault)
      return { ...fault }
    },
  }
}
