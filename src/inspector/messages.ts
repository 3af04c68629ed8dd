import { getRouterParam, type H3, type H3Event } from 'h3'
import { checkEmail } from '../checks/index.js'
import { apiError } from '../http/errors.js'
import { htmlAnswer } from './html.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import type { MessageFilter, MessageRecord } from '../store/types.js'
import { parseAfter, parseFilter, parseTimeout } from './query.js'
import { clearMessages, deleteMessage } from '../core/messages.js'
import { ShuttingDownError, waitForMessage, WaitTimeoutError } from '../core/wait.js'

function findMessage(event: H3Event, ctx: AppContext): MessageRecord {
  const id = getRouterParam(event, 'id') ?? ''
  const record = ctx.log.get(id)
  if (!record) throw apiError(404, 'message_not_found', `There is no message "${id}"; it may have been deleted or dropped by --max-messages. GET /_sandbox/api/messages lists the ones there are.`)
  return record
}

/** RFC 5322 via nodemailer's composer, loaded on first use to keep start-up memory down. */
export async function toEml(record: MessageRecord): Promise<Buffer> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer/index.js')
  const mail = new MailComposer({
    from: { name: record.from.name ?? '', address: record.from.address },
    to: record.to.map((to) => ({ name: to.name ?? '', address: to.address })),
    subject: record.subject,
    date: new Date(record.createdAt),
    messageId: `<${record.id}@sendbox.local>`,
    text: record.text,
    html: record.html,
    headers: { 'X-Sendbox-Template': record.template, 'X-Sendbox-Project': record.project },
  })
  return mail.compile().build()
}

const textResponse = (body: string | Buffer, headers: Record<string, string>) => new Response(body, { headers: { 'x-content-type-options': 'nosniff', ...headers } })

export function registerMessageRoutes(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/messages', {
    GET: (event) => {
      const page = ctx.log.list(parseFilter(event, { paging: true }))
      // `?fields=summary` leaves out the bodies: what a list needs, at a fraction of the bytes.
      if (event.url.searchParams.get('fields') !== 'summary') return page
      return { total: page.total, messages: page.messages.map(({ html: _h, text: _t, templateVariables: _v, ...summary }) => summary) }
    },
    DELETE: async (event) => {
      await clearMessages(ctx, parseFilter(event, { paging: false }))
      return new Response(null, { status: 204 })
    },
  })
  route(app, '/_sandbox/api/messages/wait', {
    GET: async (event) => {
      const filter = parseFilter(event, { paging: false })
      const timeout = parseTimeout(event)
      const after = parseAfter(event)
      // A client that hangs up stops waiting at once: no listener or timer outlives it.
      const abort = new AbortController()
      event.runtime?.node?.res?.once('close', () => abort.abort())
      try {
        return await waitForMessage(ctx, { ...filter, timeout, signal: abort.signal, ...(after ? { after } : {}) })
      } catch (error) {
        if (error instanceof WaitTimeoutError) throw apiError(404, 'wait_timeout', `${error.message} Send one, or wait longer with ?timeout= (at most 60000).`)
        if (error instanceof ShuttingDownError) throw apiError(503, 'shutting_down', error.message)
        throw error
      }
    },
  })
  route(app, '/_sandbox/api/messages/:id', {
    GET: (event) => findMessage(event, ctx),
    DELETE: async (event) => {
      await deleteMessage(ctx, findMessage(event, ctx).id)
      return new Response(null, { status: 204 })
    },
  })
  route(app, '/_sandbox/api/messages/:id/html', {
    GET: (event) => htmlAnswer(event, findMessage(event, ctx).html),
  })
  route(app, '/_sandbox/api/messages/:id/text', {
    GET: (event) => textResponse(findMessage(event, ctx).text, { 'content-type': 'text/plain; charset=utf-8' }),
  })
  route(app, '/_sandbox/api/messages/:id/checks', {
    GET: async (event) => {
      const record = findMessage(event, ctx)
      return checkEmail({ html: record.html, text: record.text })
    },
  })
  route(app, '/_sandbox/api/messages/:id/eml', {
    GET: async (event) => {
      const record = findMessage(event, ctx)
      return textResponse(await toEml(record), {
        'content-type': 'message/rfc822',
        'content-disposition': `attachment; filename="${record.id}.eml"`,
      })
    },
  })
}
