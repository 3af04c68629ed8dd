import { FAULT_INPUT, FAULT_STATUSES, FaultLimitError } from '../core/faults.js'
import { apiError } from '../http/errors.js'
import * as v from 'valibot'
import { defineOperation } from '../http/define.js'
import { component, described } from '../lib/schema.js'
import { PROJECT_ACCESS } from '../http/viewer.js'

const FAULT_BODY_LIMIT = 64 * 1024

const FAULT = component(
  'Fault',
  v.pipe(
    v.object({
      id: v.pipe(v.string(), v.regex(/^fault_[0-9]+$/), v.examples(['fault_1'])),
      status: v.pipe(v.picklist(FAULT_STATUSES), v.metadata({ type: 'integer' })),
      remaining: described(
        v.pipe(v.number(), v.integer(), v.minValue(1)),
        'Matching sends still to fail.',
      ),
      match: described(
        v.object({ template: v.optional(v.string()), to: v.optional(v.string()) }),
        'Which sends it fails; {} for all.',
      ),
      retryAfter: v.pipe(v.number(), v.integer(), v.minValue(0)),
      createdAt: v.pipe(v.string(), v.isoTimestamp()),
      project: v.optional(
        described(v.string(), 'With projects: the project that armed it; it fails only its sends.'),
      ),
    }),
    v.description('An armed fault.'),
  ),
)

/** POST/GET/DELETE /_sandbox/api/faults (docs/delivery.md#faults). */
export const faultOperations = [
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/faults',
    operationId: 'armFault',
    tag: 'inspector',
    summary: 'Make the next `count` matching sends fail with `status`.',
    description:
      'A faulted send answers `simulated_fault` with that status (a 429 with Retry-After) and is not stored. An armed fault answers after the shape check, so an invalid send is still reported as invalid and does not use it up. For one request, `Prefer: code=<status>` on the emulated API does the same without arming anything.',
    body: { schema: FAULT_INPUT, description: 'The fault.', limit: () => FAULT_BODY_LIMIT },
    success: { status: 201, description: 'Armed.', schema: FAULT },
    examples: {
      twice503: {
        summary: 'The next two sends of the receipt fail with 503',
        body: { status: 503, count: 2, match: { template: 'order-receipt' } },
        response: {
          id: 'fault_1',
          status: 503,
          remaining: 2,
          match: { template: 'order-receipt' },
          retryAfter: 1,
          createdAt: '2026-11-21T10:00:00.000Z',
        },
      },
    },
    errors: [[409, 'too_many_faults']],
    security: PROJECT_ACCESS,
    handler: async ({ ctx, body, caller }) => {
      try {
        return await ctx.faults.arm(body, caller.project ?? undefined)
      } catch (error) {
        if (error instanceof FaultLimitError) throw apiError(409, 'too_many_faults', error.message)
        throw error
      }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/faults',
    operationId: 'listFaults',
    tag: 'inspector',
    summary: 'The armed faults.',
    description: 'In the order they were armed; the first that matches a send is used.',
    success: {
      status: 200,
      description: 'Armed faults.',
      schema: v.object({ faults: v.array(FAULT) }),
    },
    security: PROJECT_ACCESS,
    handler: async ({ ctx, caller }) => ({
      faults: await ctx.faults.list(caller.project ?? undefined),
    }),
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/faults',
    operationId: 'clearFaults',
    tag: 'inspector',
    summary: 'Disarm every fault.',
    description: 'Sends succeed again (unless their token or a Prefer header says otherwise).',
    success: { status: 204, description: 'Disarmed; no body.' },
    security: PROJECT_ACCESS,
    async handler({ ctx, caller }) {
      await ctx.faults.clear(caller.project ?? undefined)
    },
  }),
]
