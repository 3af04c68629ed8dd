import type { Parsed } from '../lib/problems.js'
import { enumOf, integer, object, optional, parse, string } from '../lib/schema.js'
import { SLUG_HINT, SLUG_PATTERN } from '../templates/index.js'
import type { Awaitable, FaultTable, StoredFault } from '../store/types.js'

/**
 * Fault injection (docs/delivery.md#faults): make the next n matching sends fail the way the real service
 * can, so an application's retry and error paths can be tested. Faulted sends are not stored.
 */

export const FAULT_STATUSES = [429, 500, 502, 503] as const

/**
 * At most this many faults are armed at once by one project (without projects, by the sandbox): a
 * test suite needs a handful, not thousands, and one project's never crowd out another's.
 */
export const MAX_ARMED_FAULTS = 100
/**
 * The most sends one fault fails: a test needs a few, and the count is a PostgreSQL `integer`
 * (past 2^31 − 1 the insert failed, a 500).
 */
export const MAX_FAULT_COUNT = 1_000_000
/** The longest Retry-After a 429 fault asks for, in seconds: a day. */
export const MAX_RETRY_AFTER = 86_400
/** Longest `match.template` (a slug's own limit) and `match.to` (a long address with its name). */
export const MAX_MATCH_LENGTH = { template: 128, to: 320 } as const

/** `arm` with MAX_ARMED_FAULTS already armed. */
export class FaultLimitError extends Error {
  override name = 'FaultLimitError'
  readonly code = 'too_many_faults'
  constructor() {
    super(
      `${MAX_ARMED_FAULTS} faults are armed already (with projects: by this project), the most sendbox keeps; disarm them (DELETE /_sandbox/api/faults) or let them count down first.`,
    )
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
  /** With projects: the project that armed it, whose sends alone it fails (absent: every send). */
  project?: string
}

export interface SendFacts {
  /** The sending token's project. */
  project: string
  template: string
  /** Recipients as given (`Name <a@b.c>` or bare). */
  to: string[]
}

/** The armed faults: in this process, or in a store the processes share (answers later then). */
export interface FaultRegistry {
  /** Throws FaultLimitError when MAX_ARMED_FAULTS are armed. */
  /** `project`: the sends of this project only (a project's own fault); absent, every send. */
  arm(input: FaultInput, project?: string): Awaitable<Fault>
  /** The armed faults; with `project`, that project's only. */
  list(project?: string): Awaitable<Fault[]>
  /** Disarms all (with `project`, that project's); returns how many were armed. */
  clear(project?: string): Awaitable<number>
  /** The first armed fault matching this send, counted down (and removed at zero). */
  take(send: SendFacts): Awaitable<Fault | undefined>
}

/** Every fault field, checked by `POST /_sandbox/api/faults` and `sandbox.fail()` and described by the document. */
export const FAULT_INPUT = object(
  {
    status: enumOf(FAULT_STATUSES, { description: 'The status the matching sends get.' }),
    count: optional(
      integer({
        minimum: 1,
        maximum: MAX_FAULT_COUNT,
        description:
          'How many matching sends fail (default 1); the fault counts down and disappears.',
      }),
      1,
    ),
    match: optional(
      object(
        {
          template: optional(
            string({
              maxLength: MAX_MATCH_LENGTH.template,
              pattern: SLUG_PATTERN,
              patternHint: SLUG_HINT,
              description: 'Only sends of this template (its exact slug).',
              examples: ['order-receipt'],
            }),
          ),
          to: optional(
            string({
              maxLength: MAX_MATCH_LENGTH.to,
              description: 'Only sends with a recipient containing this, case-insensitive.',
              examples: ['ada@'],
            }),
          ),
        },
        {
          description:
            'Which sends fail; other sends go through and do not use the fault up. Absent or {}: every send.',
        },
      ),
    ),
    retryAfter: optional(
      integer({
        minimum: 0,
        maximum: MAX_RETRY_AFTER,
        description: 'Seconds in the Retry-After header of a 429 (default 1).',
      }),
      1,
    ),
  },
  { description: 'A fault to arm.' },
)

/**
 * Validates a fault the way `POST /_sandbox/api/faults` and `sandbox.fail()` both take it,
 * listing every problem at once.
 *
 * @example
 * parseFaultInput({ status: 503, count: 2 })  // { ok: true, value: { status: 503, count: 2, retryAfter: 1, match: {} } }
 * parseFaultInput({ status: 418 })            // { ok: false, problems: [{ field: 'status', … }] }
 */
export function parseFaultInput(body: unknown): Parsed<FaultInput> {
  const parsed = parse(FAULT_INPUT, body)
  if (!parsed.ok) return parsed
  const { status, count = 1, retryAfter = 1, match = {} } = parsed.value
  return { ok: true, value: { status, count, retryAfter, match: { ...match } } }
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
  if (fault.project !== undefined && fault.project !== send.project) return false
  if (fault.match.template !== undefined && fault.match.template !== send.template) return false
  if (fault.match.to !== undefined) {
    const needle = fault.match.to.toLowerCase()
    if (!send.to.some((to) => to.toLowerCase().includes(needle))) return false
  }
  return true
}

/** A fault as armed now, before its table gives it its id. */
const armed = (input: FaultInput, project: string | undefined): Omit<Fault, 'id'> => ({
  status: input.status,
  remaining: input.count ?? 1,
  match: { ...input.match },
  retryAfter: input.retryAfter ?? 1,
  createdAt: new Date().toISOString(),
  ...(project === undefined ? {} : { project }),
})

/**
 * The faults of a sandbox, over the table its store keeps them in: in memory for the JSON Lines
 * log, in the database for processes that share one, where a fault armed through any of them
 * fails exactly `count` sends in total, whichever processes receive them. Matching stays here;
 * the table counts down atomically (a fault another process used up is skipped).
 *
 * @example
 * const faults = createFaultRegistry(store.faults ?? createMemoryFaultTable())
 * await faults.arm({ status: 503, count: 3 })
 */
export function createFaultRegistry(table: FaultTable): FaultRegistry {
  // The table holds what arm() wrote: its status is one of FAULT_STATUSES.
  const asFault = (stored: StoredFault) => stored as Fault
  return {
    async arm(input, project) {
      const stored = await table.add(armed(input, project), MAX_ARMED_FAULTS)
      if (!stored) throw new FaultLimitError()
      return asFault(stored)
    },
    list: async (project) =>
      (await table.list())
        .map(asFault)
        .filter((f) => project === undefined || f.project === project),
    clear: (project) => table.clear(project),
    async take(send) {
      for (const fault of await table.list()) {
        if (!matches(asFault(fault), send)) continue
        const taken = await table.countDown(fault.id)
        if (taken) return asFault(taken)
      }
      return undefined
    },
  }
}
