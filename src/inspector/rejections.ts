import { defineOperation } from '../http/define.js'
import { component } from '../http/openapi.js'
import { filterOf, FILTER_QUERY, PAGING_QUERY } from './query.js'

const nullableString = { type: ['string', 'null'] }

/** A rejected send, as src/core/rejections.ts keeps it: never the token, the variables or the body. */
const REJECTION = component('Rejection', {
  type: 'object',
  description:
    'A send sendbox refused, kept in memory (the newest 100) so a test can see why its app got no message.',
  required: [
    'id',
    'at',
    'status',
    'code',
    'message',
    'details',
    'template',
    'from',
    'to',
    'subject',
    'project',
    'tokenHint',
  ],
  properties: {
    id: { type: 'string', examples: ['rej_01KAPXVZ5Q3K8T1V7W9Y2B4C6D'] },
    at: { type: 'string', format: 'date-time' },
    status: { type: 'integer', description: 'The status the send was answered with.' },
    code: { type: 'string', examples: ['missing_variables'] },
    message: { type: 'string' },
    details: { type: 'array', items: {}, description: "The error's details, cut down." },
    template: { ...nullableString, description: 'What the body named, if it could be read.' },
    from: nullableString,
    to: { type: ['array', 'null'], items: { type: 'string' } },
    subject: nullableString,
    project: { ...nullableString, description: 'Once the token was accepted.' },
    tokenHint: nullableString,
  },
})

/** GET and DELETE /_sandbox/api/rejections: the recent refused sends, newest first. */
export const rejectionOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/rejections',
    operationId: 'listRejections',
    tag: 'inspector',
    summary: 'Recent rejected sends (the newest 100, in memory), newest first: no token, no body.',
    description:
      'Takes the message filters; `to`, `template` and the rest match what the refused body said, as far as it could be read.',
    query: { ...FILTER_QUERY, ...PAGING_QUERY },
    success: {
      status: 200,
      description: 'A page of rejections.',
      schema: {
        type: 'object',
        required: ['rejections', 'total'],
        properties: {
          rejections: { type: 'array', items: REJECTION },
          total: { type: 'integer', minimum: 0 },
        },
      },
    },
    handler({ ctx, query }) {
      const { limit, offset, ...filter } = filterOf(query)
      const all = ctx.rejections.list(filter)
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
    handler({ ctx }) {
      ctx.rejections.clear()
    },
  }),
]
