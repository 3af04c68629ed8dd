import type { AppContext } from '../http/context.js'
import { listSuppressions, removeSuppressions } from '../core/suppressions.js'
import type { Suppression } from '../store/types.js'
import { SUPPRESSION_LIST } from '../http/delivery-components.js'
import * as v from 'valibot'
import { defineOperation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { noNul, pathParam, textParam } from '../http/params.js'
import { PROJECT_ACCESS, scoped, type Viewer } from '../http/viewer.js'

const PROJECT = {
  project: textParam(
    "Only this project: 8 hex characters of the token's SHA-256, or with --projects its name (a project's token sees its own only).",
    { examples: ['1f2e3d4c'] },
  ),
}

/** `?project=` as a filter, narrowed to what the caller sees: one project, or all when absent. */
const projectFilter = (project: string | undefined, viewer: Viewer) =>
  scoped(project ? { project } : {}, viewer)

/** Addresses are kept trimmed and lower-cased (the segment is percent-decoded already). */
const normal = (value: string): string => value.trim().toLowerCase()
const ADDRESS = {
  address: pathParam(
    'An address (case-insensitive); `@` and `+` may be percent-encoded or not.',
    v.pipe(v.string(), v.minLength(1), noNul, v.transform(normal), v.examples(['ada@example.com'])),
  ),
}

const notSuppressed = (address: string) =>
  apiError(
    404,
    'suppression_not_found',
    `${JSON.stringify(address)} is not on the suppression list (of the project asked for). GET /_sandbox/api/suppressions lists the addresses that are.`,
  )

/** An entry with the subject of the message that added it, while the log still has that message. */
async function withSubject(
  ctx: Pick<AppContext, 'log'>,
  suppression: Suppression,
): Promise<Suppression & { subject?: string }> {
  const subject = suppression.messageId
    ? (await ctx.log.get(suppression.messageId))?.subject
    : undefined
  return subject === undefined ? suppression : { ...suppression, subject }
}

/** The suppression list (docs/delivery.md): list, and remove one address or all. */
export const suppressionOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/suppressions',
    operationId: 'listSuppressions',
    tag: 'inspector',
    summary: 'The suppression list: addresses hard-bounced or complained, per project.',
    description:
      'Sends to a suppressed address are still 201, and the recipient ends `suppressed`. Clearing messages leaves the list alone.',
    query: {
      ...PROJECT,
      address: textParam('Only this address.', { examples: ['ada@example.com'] }),
    },
    success: { status: 200, description: 'The entries.', schema: SUPPRESSION_LIST },
    security: PROJECT_ACCESS,
    async handler({ ctx, query, caller }) {
      const listed = await listSuppressions(ctx, {
        ...projectFilter(query.project, caller),
        ...(query.address ? { address: query.address } : {}),
      })
      const suppressions = await Promise.all(listed.map((s) => withSubject(ctx, s)))
      return { suppressions, total: suppressions.length }
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/suppressions',
    operationId: 'clearSuppressions',
    tag: 'inspector',
    summary: 'Empty the suppression list (of one project with `?project=`).',
    description: 'Sends to those addresses are delivered again.',
    query: PROJECT,
    success: { status: 204, description: 'Removed.' },
    security: PROJECT_ACCESS,
    async handler({ ctx, query, caller }) {
      await removeSuppressions(ctx, projectFilter(query.project, caller))
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/suppressions/:address',
    operationId: 'getSuppression',
    tag: 'inspector',
    summary: "An address's suppressions (one per project).",
    description: '404 when the address is not suppressed.',
    params: ADDRESS,
    query: PROJECT,
    success: { status: 200, description: 'The entries.', schema: SUPPRESSION_LIST },
    errors: [[404, 'suppression_not_found']],
    security: PROJECT_ACCESS,
    async handler({ ctx, params, query, caller }) {
      const suppressions = await listSuppressions(ctx, {
        ...projectFilter(query.project, caller),
        address: params.address,
      })
      if (!suppressions.length) throw notSuppressed(params.address)
      return { suppressions, total: suppressions.length }
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/suppressions/:address',
    operationId: 'removeSuppression',
    tag: 'inspector',
    summary: 'Take an address off the suppression list.',
    description: '404 when the address is not suppressed.',
    params: ADDRESS,
    query: PROJECT,
    success: { status: 204, description: 'Removed.' },
    errors: [[404, 'suppression_not_found']],
    security: PROJECT_ACCESS,
    async handler({ ctx, params, query, caller }) {
      const removed = await removeSuppressions(ctx, {
        ...projectFilter(query.project, caller),
        address: params.address,
      })
      if (!removed.length) throw notSuppressed(params.address)
    },
  }),
]
