import { checkEmail } from '../checks/index.js'
import type { AppContext } from '../core/context.js'
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
import { pathParam } from '../http/params.js'
import type { MessageRecord } from '../store/types.js'
import { HTML_QUERY, htmlAnswer } from './html.js'
import {
  AFTER_QUERY,
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
    v.metadata({ pattern: MESSAGE_ID.source }),
    v.examples(['msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D']),
  ),
)

async function findMessage(ctx: AppContext, id: string): Promise<MessageRecord> {
  const record = await ctx.log.get(id)
  if (!record)
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

const textResponse = (body: string | Buffer, headers: Record<string, string>) =>
  new Response(body, { headers: { 'x-content-type-options': 'nosniff', ...headers } })

const NOT_FOUND = [[404, 'message_not_found']] as const
const one = { id: ID }

export const messageOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages',
    operationId: 'listMessages',
    tag: 'inspector',
    summary: 'Stored messages, newest first.',
    description:
      'Every filter narrows the list (they are ANDed); `total` counts the matches before `limit` and `offset`.',
    query: { ...FILTER_QUERY, ...PAGING_QUERY, ...FIELDS_QUERY },
    success: {
      status: 200,
      description: 'A page of messages.',
      schema: v.object({
        messages: v.pipe(
          v.array(v.union([MESSAGE_RECORD, MESSAGE_SUMMARY])),
          v.description('Whole records, or summaries with `?fields=summary`.'),
        ),
        total: count('Matches before limit and offset.'),
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
    async handler({ ctx, query }) {
      const page = await ctx.log.list(filterOf(query))
      // `?fields=summary` leaves out the bodies: what a list needs, at a fraction of the bytes.
      const messages =
        query.fields === 'summary'
          ? page.messages.map(summaryOf)
          : page.messages.map(ctx.reader.read)
      // Sizes are known (measured when stored): a large page streams instead of becoming one string.
      let bytes = 0
      for (const record of page.messages) bytes += recordSize(record)
      if (bytes > STREAM_ABOVE) return streamJsonList('messages', messages, { total: page.total })
      return { messages, total: page.total }
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/messages',
    operationId: 'clearMessages',
    tag: 'inspector',
    summary: 'Clear the log, or the messages the filters match.',
    description:
      'Without filters, every message goes; with them, only the matches. Subscribers to the event stream get `cleared`.',
    query: FILTER_QUERY,
    success: { status: 204, description: 'Done; no body.' },
    async handler({ ctx, query }) {
      await clearMessages(ctx, filterOf(query))
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/wait',
    operationId: 'waitForMessage',
    tag: 'inspector',
    summary: 'The newest matching message, or the first to arrive before the timeout.',
    description:
      'Answers at once when a message matches; otherwise waits up to `timeout` ms for one (404 wait_timeout when none came). A client that hangs up stops the wait.',
    query: { ...FILTER_QUERY, ...TIMEOUT_QUERY, ...AFTER_QUERY },
    success: { status: 200, description: 'The message.', schema: MESSAGE_RECORD },
    errors: [
      [404, 'wait_timeout'],
      [503, 'shutting_down'],
    ],
    async handler({ ctx, event, query }) {
      // A client that hangs up stops waiting at once: no listener or timer outlives it.
      const abort = new AbortController()
      event.runtime?.node?.res?.once('close', () => abort.abort())
      try {
        const record = await waitForMessage(ctx, {
          ...filterOf(query),
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
    summary: 'One message.',
    description: 'The whole record, as stored, with its `links` and `codes`.',
    params: one,
    success: { status: 200, description: 'The record.', schema: MESSAGE_RECORD },
    errors: NOT_FOUND,
    handler: async ({ ctx, params }) => ctx.reader.read(await findMessage(ctx, params.id)),
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/messages/:id',
    operationId: 'deleteMessage',
    tag: 'inspector',
    summary: 'Delete one message.',
    description: 'Subscribers to the event stream get `deleted`.',
    params: one,
    success: { status: 204, description: 'Deleted; no body.' },
    errors: NOT_FOUND,
    async handler({ ctx, params }) {
      await deleteMessage(ctx, (await findMessage(ctx, params.id)).id)
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/html',
    operationId: 'getMessageHtml',
    tag: 'inspector',
    summary: 'The rendered HTML, with a sandboxing Content-Security-Policy.',
    description:
      'Served in an opaque origin with no scripts (CSP `sandbox`), images allowed as in a mail client with images on; `?images=off` and `?scheme=` adjust it.',
    params: one,
    query: HTML_QUERY,
    success: { status: 200, description: 'The HTML.', contentType: 'text/html' },
    errors: NOT_FOUND,
    handler: async ({ ctx, params, query }) =>
      htmlAnswer((await findMessage(ctx, params.id)).html, query),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/text',
    operationId: 'getMessageText',
    tag: 'inspector',
    summary: 'The plain-text version.',
    description: 'Derived from the HTML when the message was sent.',
    params: one,
    success: { status: 200, description: 'The text.', contentType: 'text/plain' },
    errors: NOT_FOUND,
    handler: async ({ ctx, params }) =>
      textResponse((await findMessage(ctx, params.id)).text, {
        'content-type': 'text/plain; charset=utf-8',
      }),
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/checks',
    operationId: 'checkMessage',
    tag: 'inspector',
    summary: 'Email checks of the stored message.',
    description:
      "Size against Gmail's clipping, mail-client support of the HTML and CSS it uses, images, links and the plain text.",
    params: one,
    success: { status: 200, description: 'The checks.', schema: EMAIL_CHECKS },
    errors: NOT_FOUND,
    async handler({ ctx, params }) {
      const record = await findMessage(ctx, params.id)
      return checkEmail({ html: record.html, text: record.text })
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/messages/:id/eml',
    operationId: 'getMessageEml',
    tag: 'inspector',
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
    async handler({ ctx, params }) {
      const record = await findMessage(ctx, params.id)
      return textResponse(toEml(record), {
        'content-type': 'message/rfc822',
        'content-disposition': `attachment; filename="${record.id}.eml"`,
      })
    },
  }),
]
