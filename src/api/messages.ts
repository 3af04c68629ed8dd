import * as v from 'valibot'
import { type AcceptedSend, storeMessage } from '../core/messages.js'
import { recordRejection, recipientsOf, type RejectionInput } from '../core/rejections.js'
import { WARNING } from '../http/components.js'
import { defineOperation } from '../http/define.js'
import type { AppContext } from '../http/context.js'
import { errorAnswerOf } from '../http/errors.js'
import { noteRequest, noteRequestUnlessKnown } from '../http/request-log.js'
import { templateError } from '../http/template-errors.js'
import { isPlainObject } from '../lib/json.js'
import { component, described } from '../lib/schema.js'
import { formatAddress } from '../store/index.js'
import type { MessageRecord } from '../store/types.js'
import { renderMessageWith } from '../templates/index.js'
import { LENIENT_SEND_REQUEST, SEND_REQUEST, unknownFields } from './schema.js'
import { SEND_TOKEN, simulatedFault } from './security.js'
import { sendRequestDocument } from './send-document.js'

export { simulatedFault }

const MESSAGE_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/

const SEND_RESPONSE = component(
  'SendResponse',
  v.pipe(
    v.object({
      id: described(
        v.pipe(v.string(), v.regex(MESSAGE_ID)),
        'The message id; GET /_sandbox/api/messages/<id> reads it back.',
      ),
      status: v.literal('sent'),
      sandbox: described(v.literal(true), 'Always true: nothing left this machine.'),
      createdAt: v.pipe(v.string(), v.isoTimestamp()),
      template: v.string(),
      to: described(v.array(v.string()), 'The recipients, normalised to "Name <address>".'),
      subject: v.string(),
      warnings: v.array(WARNING),
    }),
    v.description('The accepted message.'),
  ),
)

const welcome = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'Ada Lovelace <ada@example.com>',
  subject: 'Welcome to Acme',
  templateVariables: { name: 'Ada', dashboardUrl: 'https://acme.test/dashboard' },
}

/**
 * POST /messages. The checks run in the contract's order and the first failure answers:
 * auth → media type and size → JSON → shape → template → variables → render.
 * Then the record is stored (201 only once its line reached the OS) and published.
 */
export const sendOperation = defineOperation({
  method: 'POST',
  path: '/messages',
  operationId: 'sendMessage',
  tag: 'api',
  summary: 'Send a message: render a template and store the result.',
  description:
    'Checks, in this order, and the first failure answers: auth (401/403; a `sandbox_fault_<status>` token or `Prefer: code=<status>` then fails it on purpose), content type and size (415/413), JSON syntax (400 invalid_json), shape (422 validation_failed, every problem at once), an armed fault (its status), the template (422 template_not_found / template_invalid), variables (422 missing_variables), render (422 render_failed).',
  security: SEND_TOKEN,
  body: {
    description: 'The message.',
    schema: SEND_REQUEST,
    lenient: LENIENT_SEND_REQUEST,
    noun: 'message',
    document: sendRequestDocument,
  },
  success: {
    status: 201,
    description: 'Sent (stored in the sandbox, never delivered).',
    schema: SEND_RESPONSE,
    headers: {
      Location: {
        description: 'The record: `/_sandbox/api/messages/<id>`.',
        schema: v.pipe(
          v.string(),
          v.regex(/^\/_sandbox\/api\/messages\/msg_[0-9A-HJKMNP-TV-Z]{26}$/),
        ),
      },
    },
  },
  errors: [
    [422, 'template_not_found'],
    [422, 'template_invalid'],
    [422, 'missing_variables'],
    [422, 'render_failed'],
    [507, 'log_write_failed'],
    [503, 'store_unavailable'],
    [503, 'shutting_down'],
  ],
  examples: {
    welcome: {
      summary: 'The welcome example template, with the variables it needs',
      body: welcome,
      response: {
        id: 'msg_01KAPXVZ5Q3K8T1V7W9Y2B4C6D',
        status: 'sent',
        sandbox: true,
        createdAt: '2026-11-21T10:00:00.000Z',
        template: 'welcome',
        to: ['Ada Lovelace <ada@example.com>'],
        subject: 'Welcome to Acme',
        warnings: [],
      },
    },
    missingVariables: {
      summary: 'A variable the template needs is missing',
      body: { ...welcome, templateVariables: { name: 'Ada' } },
      status: 422,
      response: {
        error: {
          code: 'missing_variables',
          message: 'The template "welcome" needs dashboardUrl…',
          details: [
            {
              variable: 'dashboardUrl',
              message: 'templateVariables.dashboardUrl is required by the template "welcome".',
            },
          ],
        },
      },
    },
    invalid: {
      summary: 'Every bad field at once, with a did-you-mean',
      body: {
        template: 'welcome',
        from: 'Acme <hello@acme.test>',
        to: ['ada@example.com', 'not an address'],
        subject: 'Welcome',
        templateVars: {},
      },
      status: 422,
      response: {
        error: {
          code: 'validation_failed',
          message: 'The message is not valid: check to[1], templateVars.',
          details: [
            {
              field: 'to[1]',
              code: 'invalid_address',
              message:
                'to[1] must be an address like "Ada Lovelace <ada@example.com>" or "ada@example.com"; got "not an address".',
            },
            {
              field: 'templateVars',
              code: 'unknown_field',
              message: 'Unknown field "templateVars". Did you mean "templateVariables"?',
            },
          ],
        },
      },
    },
    templateNotFound: {
      summary: 'A template that does not exist, with the nearest suggested',
      body: { ...welcome, template: 'welcom' },
      status: 422,
      response: {
        error: {
          code: 'template_not_found',
          message: 'There is no template "welcom". Did you mean "welcome"?',
          details: [{ suggestion: 'welcome' }],
        },
      },
    },
  },
  async handler({ ctx, event, body, caller }) {
    // One address or a list of them: a list either way from here on.
    const recipients = Array.isArray(body.to) ? body.to : [body.to]
    // Under --lenient, fields no send has passed the check: each is a warning instead.
    const warnings = unknownFields(body).map((field) => ({
      code: 'unknown_field' as const,
      message: `Unknown field "${field}" was ignored.`,
    }))
    const request = { ...body, to: recipients, warnings }
    const to = recipients.map(formatAddress)
    noteRequest(event, { template: request.template, to: request.to.map((a) => a.address) })
    const fault = await ctx.faults.take({ project: caller.project, template: request.template, to })
    if (fault) throw simulatedFault(fault.status, fault.retryAfter)
    const record = await renderAndStore(ctx, request, caller)
    event.res.headers.set('location', `/_sandbox/api/messages/${record.id}`)
    return {
      id: record.id,
      // A record is `sent` when stored; delivery moves it on after this answer (docs/delivery.md).
      status: 'sent' as const,
      sandbox: true as const,
      createdAt: record.createdAt,
      template: record.template,
      to,
      subject: record.subject,
      warnings: record.warnings,
    }
  },
  // A refused send leaves a trace (never the token, the variables or the body) that the
  // inspector lists and a wait_timeout names: an app that ignored a 422 is found out.
  onError({ ctx, event, error, caller, raw }) {
    const seen = glimpse(raw)
    if (seen.template || seen.to)
      noteRequestUnlessKnown(event, {
        ...(seen.template ? { template: seen.template } : {}),
        ...(seen.to ? { to: seen.to } : {}),
      })
    const who = caller as { project?: string; tokenHint?: string } | undefined
    return recordRejection(ctx, {
      ...errorAnswerOf(error),
      ...seen,
      project: who?.project ?? null,
      tokenHint: who?.tokenHint ?? null,
    })
  },
})

/**
 * Renders a send and stores it; a template failure throws its API error. Sends under way together
 * convert their text parts on a worker thread (`TextParts`), each stored before its answer.
 */
async function renderAndStore(
  ctx: AppContext,
  request: Omit<AcceptedSend, 'caller' | 'rendered'>,
  caller: AcceptedSend['caller'],
): Promise<MessageRecord> {
  const done = ctx.texts.begin()
  try {
    const outcome = await renderMessageWith(
      ctx.catalog,
      request.template,
      request.templateVariables,
      { lenient: ctx.config.lenient },
      ctx.texts.of,
    )
    if (!outcome.ok) throw templateError(outcome.failure)
    return await storeMessage(ctx, { ...request, caller, rendered: outcome.rendered })
  } finally {
    done()
  }
}

type Seen = Pick<RejectionInput, 'template' | 'from' | 'to' | 'subject'>

/** What a body that may not validate says about itself: enough to recognise the send later. */
function glimpse(body: unknown): Seen {
  if (!isPlainObject(body)) return { template: null, from: null, to: null, subject: null }
  return {
    template: typeof body.template === 'string' ? body.template : null,
    from: typeof body.from === 'string' ? body.from : null,
    to: recipientsOf(body.to),
    subject: typeof body.subject === 'string' ? body.subject : null,
  }
}
