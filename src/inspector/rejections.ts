import * as v from 'valibot'
import { count } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { component, described } from '../lib/schema.js'
import { filterOf, FILTER_QUERY, PAGING_QUERY } from './query.js'
import { PROJECT_ACCESS, sees } from '../http/viewer.js'

const nullableString = (description?: string) =>
  description ? described(v.nullable(v.string()), description) : v.nullable(v.string())

/** A rejected send, as src/core/rejections.ts keeps it: never the token, the variables or the body. */
const REJECTION = component(
  'Rejection',
  v.pipe(
    v.object({
      id: described(v.string(), 'The rejection id.', ['rej_01KAPXVZ5Q3K8T1V7W9Y2B4C6D']),
      at: v.pipe(v.string(), v.isoTimestamp()),
      status: described(v.pipe(v.number(), v.integer()), 'The status the send was answered with.'),
      code: described(v.string(), "The error's code.", ['missing_variables']),
      message: v.string(),
      details: described(v.array(v.unknown()), "The error's details, cut down."),
      template: nullableString('What the body named, if it could be read.'),
      from: nullableString(),
      to: v.nullable(v.array(v.string())),
      subject: nullableString(),
      project: nullableString('Once the token was accepted.'),
      tokenHint: nullableString(),
    }),
    v.description(
      'A send sendbox refused, kept (the newest 100; in the database when processes share one) so a test can see why its app got no message.',
    ),
  ),
)

/** GET and DELETE /_sandbox/api/rejections: the recent refused sends, newest first. */
export const rejectionOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/rejections',
    operationId: 'listRejections',
    tag: 'inspector',
    summary:
      'Recent rejected sends (the newest 100 of each project), newest first: no token, no body.',
    description:
      'Takes the message filters; `to`, `template` and the rest match what the refused body said, as far as it could be read.',
    query: { ...FILTER_QUERY, ...PAGING_QUERY },
    success: {
      status: 200,
      description: 'A page of rejections.',
      schema: v.object({ rejections: v.array(REJECTION), total: count() }),
    },
    security: PROJECT_ACCESS,
    async handler({ ctx, query, caller }) {
      const { limit, offset, ...filter } = filterOf(query)
      // A project sees its own; a send whose token was refused belongs to none (an admin sees it).
      const all = (await ctx.rejections.list(filter)).filter((r) =>
        sees(caller, r.project ?? undefined),
      )
      const start = offset ?? 0
      return { rejections: all.slice(start, start + (limit ?? all.length)), total: all.length }
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/rejections',
    operationId: 'clearRejections',
    tag: 'inspector',
    summary: 'Forget the recent rejected sends.',
    description:
      'A full clear of the messages (`DELETE /_sandbox/api/messages` without a filter) forgets them too.',
    success: { status: 204, description: 'Forgotten.' },
    security: PROJECT_ACCESS,
    async handler({ ctx, caller }) {
      await ctx.rejections.clear(caller.project ?? undefined)
    },
  }),
]
