import { checkEmail } from '../checks/lazy.js'
import type { AppContext } from '../http/context.js'
import { toEml } from '../core/eml.js'
import { recordSize } from '../store/index.js'
import { streamJsonList } from './stream.js'
import { clearMessages, deleteMessage } from '../core/messages.js'
import { ShuttingDownError, waitForMessage, WaitTimeoutError } from '../core/wait.js'
import * as v from 'valibot'
import {
  count,
  EMAIL_CHECKS,
  MESSAGE_ID,
  MESSAGE_RECORD,
  MESSAGE_SUMMARY,
} from '../http/components.js'
import { defineOperation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { noNul, pathParam } from '../http/params.js'
import { described } from '../lib/schema.js'
import { PROJECT_ACCESS, scoped, sees, type Viewer } from '../http/viewer.js'
import type { MessageRecord } from '../store/types.js'
import { HTML_QUERY, htmlAnswer } from './html.js'
import {
  AFTER_QUERY,
  CURSOR_QUERY,
  FIELDS_QUERY,
  FILTER_QUERY,
  filterOf,
  PAGING_QUERY,
  summaryOf,
  TIMEOUT_QUERY,
} from './query.js'

/** Any text is looked up (one that is no id is simply not found); the document gives the form ids have. */
export const ID = pathParam(
  'A message id, as POST /messages answered it.',
  v.pipe(
    v.string(),
    noNul,
    v.metadata({ pattern: MESSAGE_ID.source }),
    v.examples(['msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D']),
  ),
)

/** The message, when the viewer may see it: another project's is not found, as if it did not exist. */
export async function findMessage(
  ctx: AppContext,
  id: string,
  viewer: Viewer,
): Promise<MessageRecord> {
  const record = await ctx.log.get(id)
  if (!record || !sees(viewer, record.project))
    throw apiError(
      404,
      'message_not_found',
      `There is no message "${id.slice(0, 100)}"; it may have been deleted or dropped by --max-messages. GET /_sandbox/api/messages lists the ones there are.`,
    )
  return record
}

/** A record without its bodies and variables: what `?fields=summary` lists. */

/** A list page whose records add up to more than this is streamed. */
export const STREAM_ABOVE = 1024 * 1024

const textResponse = (body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) =>
  new Response(body, { headers: { 'x-content-type-options': 'nosniff', ...headers } })

const NOT_FOUND = [[404, 'message_not_found']] as const
const one = { id: ID }

export const messageOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages',
    operationId: 'listMessages',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Stored messages, newest first.',
    description:
      'Every filter narrows the list (they are ANDed); `total` counts the matches before `limit` and `offset`.',
    query: { ...FILTER_QUERY, ...CURSOR_QUERY, ...PAGING_QUERY, ...FIELDS_QUERY },
    success: {
      status: 200,
      description: 'A page of messages.',
      schema: v.object({
        messages: v.pipe(
          v.array(v.union([MESSAGE_RECORD, MESSAGE_SUMMARY])),
          v.description('Whole records, or summaries with `?fields=summary`.'),
        ),
        total: count('Matches before limit and offset.'),
        cursor: described(
          v.string(),
          'Where the log stood when listed: give it as `after` (here, or to a wait) and only messages stored since count. Opaque: compare none, keep the latest.',
          ['42'],
        ),
      }),
    },
    // With --store: the database cannot be reached (docs/team.md).
    errors: [[503, 'store_unavailable']],
    examples: {
      recent: {
        summary: 'The ten newest, as summaries',
        query: { limit: '10', fields: 'summary' },
      },
    },
    async handler({ ctx, query, caller }) {
      const page = await ctx.log.list(
        scoped({ ...filterOf(query), ...(query.after ? { after: query.after } : {}) }, caller),
      )
      // `?fields=summary` leaves out the bodies: what a list needs, at a fraction of the bytes.
      const messages =
        query.fields === 'summary'
          ? page.messages.map(summaryOf)
          : page.messages.map(ctx.reader.read)
      // Sizes are known (measured when stored): a large page streams instead of becoming one string.
      let bytes = 0
      for (const record of page.messages) bytes += recordSize(record)
      const tail = { total: page.total, cursor: page.cursor }
      if (bytes > STREAM_ABOVE) return streamJsonList('messages', messages, tail)
      return { messages, ...tail }
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/messages',
    operationId: 'clearMessages',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Clear the log, or the messages the filters match.',
    description:
      'Without filters, every message goes; with them, only the matches. Subscribers to the event stream get `cleared`.',
    query: FILTER_QUERY,
    success: { status: 204, description: 'Done; no body.' },
    async handler({ ctx, query, caller }) {
      await clearMessages(ctx, scoped(filterOf(query), caller))
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/wait',
    operationId: 'waitForMessage',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'The newest matching message, or the first to arrive before the timeout.',
    description:
      'Answers at once when a message matches; otherwise waits up to `timeout` ms for one (404 wait_timeout when none came). A client that hangs up stops the wait.',
    query: { ...FILTER_QUERY, ...TIMEOUT_QUERY, ...AFTER_QUERY },
    success: { status: 200, description: 'The message.', schema: MESSAGE_RECORD },
    errors: [
      [404, 'wait_timeout'],
      [503, 'shutting_down'],
    ],
    async handler({ ctx, event, query, caller }) {
      // A client that hangs up stops waiting at once: no listener or timer outlives it.
      const abort = new AbortController()
      event.runtime?.node?.res?.once('close', () => abort.abort())
      try {
        const record = await waitForMessage(ctx, {
          ...scoped(filterOf(query), caller),
          timeout: query.timeout,
          signal: abort.signal,
          ...(query.after ? { after: query.after } : {}),
        })
        return ctx.reader.read(record)
      } catch (error) {
        if (error instanceof WaitTimeoutError)
          throw apiError(
            404,
            'wait_timeout',
            `${error.message} Send one, or wait longer with ?timeout= (at most 60000).`,
          )
        // The client hung up: nobody reads this answer, and it is no error of ours to log.
        if (abort.signal.aborted) return new Response(null, { status: 499 })
        if (error instanceof ShuttingDownError) throw apiError(503, 'shutting_down', error.message)
        throw error
      }
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id',
    operationId: 'getMessage',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'One message.',
    description: 'The whole record, as stored, with its `links` and `codes`.',
    params: one,
    success: { status: 200, description: 'The record.', schema: MESSAGE_RECORD },
    errors: NOT_FOUND,
    handler: async ({ ctx, params, caller }) =>
      ctx.reader.read(await findMessage(ctx, params.id, caller)),
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/messages/:id',
    operationId: 'deleteMessage',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Delete one message.',
    description: 'Subscribers to the event stream get `deleted`.',
    params: one,
    success: { status: 204, description: 'Deleted; no body.' },
    errors: NOT_FOUND,
    async handler({ ctx, params, caller }) {
      await deleteMessage(ctx, (await findMessage(ctx, params.id, caller)).id)
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/html',
    operationId: 'getMessageHtml',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'The rendered HTML, with a sandboxing Content-Security-Policy.',
    description:
      'Served in an opaque origin with no scripts (CSP `sandbox`), images allowed as in a mail client with images on; `?images=off` and `?scheme=` adjust it.',
    params: one,
    query: HTML_QUERY,
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: NOT_FOUND,
    handler: async ({ ctx, params, query, caller }) =>
      htmlAnswer((await findMessage(ctx, params.id, caller)).html, query),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/text',
    operationId: 'getMessageText',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'The plain-text version.',
    description: 'Derived from the HTML when the message was sent.',
    params: one,
    success: { status: 200, description: 'The text.', contentType: 'text/plain' },
    errors: NOT_FOUND,
    handler: async ({ ctx, params, caller }) =>
      textResponse((await findMessage(ctx, params.id, caller)).text, {
        'content-type': 'text/plain; charset=utf-8',
      }),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/checks',
    operationId: 'checkMessage',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'Email checks of the stored message.',
    description:
      "Size against Gmail's clipping, mail-client support of the HTML and CSS it uses, images, links and the plain text.",
    params: one,
    success: { status: 200, description: 'The checks.', schema: EMAIL_CHECKS },
    errors: NOT_FOUND,
    async handler({ ctx, params, caller }) {
      const record = await findMessage(ctx, params.id, caller)
      return checkEmail({ html: record.html, text: record.text })
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/eml',
    operationId: 'getMessageEml',
    tag: 'inspector',
    security: PROJECT_ACCESS,
    summary: 'An RFC 5322 message, as an attachment.',
    description:
      'multipart/alternative with the text and the HTML (quoted-printable, CRLF line breaks); a subject or name that is not plain ASCII words goes out as RFC 2047 encoded words.',
    params: one,
    success: {
      status: 200,
      description: 'The message, `<id>.eml`.',
      contentType: 'message/rfc822',
    },
    errors: NOT_FOUND,
    async handler({ ctx, params, caller }) {
      const record = await findMessage(ctx, params.id, caller)
      return textResponse(toEml(record), {
        'content-type': 'message/rfc822',
        'content-disposition': `attachment; filename="${record.id}.eml"`,
      })
    },
  }),
]
