import type { H3 } from 'h3'
import { API_ERRORS, FIELD_PROBLEM_CODES, SEND_ERROR_CODES, sendRequestSchema, type ErrorCode } from '../api/schema.js'
import type { AppContext } from '../core/context.js'
import { route } from '../http/route.js'
import { FAULT_STATUSES } from '../core/faults.js'
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from './query.js'
import { WAIT_DEFAULT_MS, WAIT_MAX_MS } from '../core/wait.js'
import { SIMULATED_EVENT_TYPES } from '../core/delivery.js'
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../core/webhook-events.js'
import { HISTORY_ATTEMPTS } from '../core/webhooks.js'
import { MESSAGE_STATUSES } from '../store/index.js'
import { WEBHOOK_LIST_DEFAULT_LIMIT, WEBHOOK_LIST_MAX_LIMIT } from './webhook-routes.js'

/**
 * GET /_sandbox/api/openapi.json: an OpenAPI 3.1 description of the emulated API and the
 * inspector. Generated from the definitions the server itself uses (the send-request fields and
 * limits of `api/schema.ts`, its error list, FAULT_STATUSES, the paging and wait limits), never
 * a hand-kept copy: change a limit there and both the validation and this document follow.
 */

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, extra: Json = {}) => ({ content: { 'application/json': { schema, ...extra } } })

/** Headers some errors carry. */
const ERROR_HEADERS: Record<number, Json> = {
  401: { 'WWW-Authenticate': { description: 'Always `Token`.', schema: { type: 'string', const: 'Token' } } },
  405: { Allow: { description: 'The methods this route accepts.', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } } },
}

const ALWAYS: ErrorCode[] = ['method_not_allowed', 'internal_error']

/** The error responses of an operation, grouped by status from API_ERRORS. */
function errorResponses(codes: readonly ErrorCode[]): Json {
  const wanted = new Set<ErrorCode>([...codes, ...ALWAYS])
  const byStatus = new Map<number, Array<(typeof API_ERRORS)[number]>>()
  for (const error of API_ERRORS) {
    if (!wanted.has(error.code)) continue
    byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), error])
  }
  const responses: Json = {}
  for (const [status, errors] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    responses[String(status)] = {
      description: errors.map((e) => `\`${e.code}\`: ${e.description}`).join(' '),
      ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
      ...json(ref('Error'), {
        examples: Object.fromEntries(errors.map((e) => [e.code, { value: { error: { code: e.code, message: e.description, details: [] } } }])),
      }),
    }
  }
  return responses
}

const stringParam = (name: string, description: string) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } })

const FILTER_PARAMETERS = [
  stringParam('to', 'Recipient (name or address) contains this, case-insensitive.'),
  stringParam('from', 'Sender contains this, case-insensitive.'),
  stringParam('template', 'Template slug contains this, case-insensitive.'),
  stringParam('subject', 'Subject contains this, case-insensitive.'),
  stringParam('project', 'Exactly this project (8 hex characters of the token\'s SHA-256).'),
  { name: 'since', in: 'query', required: false, description: 'Only messages created at or after this ISO time.', schema: { type: 'string', format: 'date-time' } },
  { name: 'status', in: 'query', required: false, description: 'Exactly this overall status (on /wait: waits for a message to reach it).', schema: { type: 'string', enum: [...MESSAGE_STATUSES] } },
]
const PAGING_PARAMETERS = [
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT } },
  { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } },
]
const TIMEOUT_PARAMETER = { name: 'timeout', in: 'query', required: false, description: 'Milliseconds to wait.', schema: { type: 'integer', minimum: 0, maximum: WAIT_MAX_MS, default: WAIT_DEFAULT_MS } }
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } })
const SLUG = pathParam('slug', 'A template slug.')
const ID = pathParam('id', 'A message id (`msg_…`).')
const IMAGES = { name: 'images', in: 'query', required: false, description: '`off` blocks remote images, like a mail client with images off.', schema: { type: 'string', enum: ['off'] } }
const CASE = { name: 'case', in: 'query', required: false, description: 'A fixture case; default: the first case, else front-matter examples.', schema: { type: 'string' } }

const noContent = { '204': { description: 'Done; no body.' } }
const API = ['api']
const INSPECTOR = ['inspector']
const PUBLIC: Json[] = []

function schemas(): Json {
  const address = { type: 'object', required: ['name', 'address'], properties: { name: { type: ['string', 'null'] }, address: { type: 'string' } } }
  const warning = { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string', examples: ['unused_variable', 'missing_variable', 'unknown_field'] }, message: { type: 'string' }, variable: { type: 'string' } } }
  const position = { type: 'object', required: ['file', 'line', 'column', 'message'], properties: { file: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, message: { type: 'string' } } }
  const codes = [...new Set(API_ERRORS.map((e) => e.code))]
  return {
    Error: {
      type: 'object',
      description: 'Every error, from every route.',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: {
            code: { type: 'string', enum: codes },
            message: { type: 'string', description: 'A sentence a person can act on.' },
            details: { type: 'array', items: { anyOf: [ref('FieldProblem'), ref('MissingVariable'), ref('SourcePosition'), { type: 'object' }] } },
          },
        },
      },
    },
    FieldProblem: { type: 'object', description: 'A `validation_failed` detail.', required: ['field', 'code', 'message'], properties: { field: { type: 'string', examples: ['to[1]'] }, code: { type: 'string', enum: [...FIELD_PROBLEM_CODES] }, message: { type: 'string' } } },
    MissingVariable: { type: 'object', description: 'A `missing_variables` detail.', required: ['variable', 'message'], properties: { variable: { type: 'string', examples: ['order.id'] }, message: { type: 'string' } } },
    SourcePosition: { ...position, description: 'A `template_invalid` or `render_failed` detail: the file relative to the templates folder.' },
    SendRequest: sendRequestSchema(),
    SendResponse: {
      type: 'object',
      required: ['id', 'status', 'sandbox', 'createdAt', 'template', 'to', 'subject', 'warnings'],
      properties: {
        id: { type: 'string', pattern: '^msg_' },
        status: { const: 'sent' },
        sandbox: { const: true },
        createdAt: { type: 'string', format: 'date-time' },
        template: { type: 'string' },
        to: { type: 'array', items: { type: 'string' } },
        subject: { type: 'string' },
        warnings: { type: 'array', items: ref('Warning') },
      },
    },
    Address: address,
    Warning: warning,
    Template: {
      type: 'object',
      required: ['slug', 'body', 'variables', 'description', 'updatedAt'],
      properties: {
        slug: { type: 'string' },
        body: { type: 'string', description: 'The template source, front matter excluded.' },
        variables: { type: 'array', items: { type: 'string' }, description: 'Top-level names the template expects, sorted.' },
        description: { type: ['string', 'null'] },
        updatedAt: { type: 'string', format: 'date-time' },
      },
    },
    TemplateSummary: {
      type: 'object',
      required: ['slug', 'description', 'variables', 'updatedAt'],
      properties: { slug: { type: 'string' }, description: { type: ['string', 'null'] }, variables: { type: 'array', items: { type: 'string' } }, updatedAt: { type: 'string', format: 'date-time' }, error: { ...position, description: 'Set when the file does not parse.' } },
    },
    FixtureCase: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, error: { type: 'string' } } },
    TemplateDetail: {
      type: 'object',
      required: ['slug', 'description', 'body', 'variables', 'required', 'declared', 'updatedAt', 'fixtures'],
      properties: {
        slug: { type: 'string' },
        description: { type: ['string', 'null'] },
        body: { type: 'string' },
        variables: { type: 'array', items: { type: 'string' } },
        required: { type: 'array', items: { type: 'string' }, description: 'Dotted paths a send must supply.' },
        declared: { type: 'object', additionalProperties: { type: 'object', properties: { description: { type: 'string' }, example: {}, required: { type: 'boolean' } } } },
        updatedAt: { type: 'string', format: 'date-time' },
        fixtures: { type: 'array', items: ref('FixtureCase') },
        skeleton: { type: 'object', description: 'Starting values for a variables editor: front-matter examples, then placeholders for every required path.' },
      },
    },
    Preview: {
      type: 'object',
      required: ['slug', 'html', 'text', 'warnings', 'missing', 'variables'],
      properties: { slug: { type: 'string' }, html: { type: 'string' }, text: { type: 'string' }, warnings: { type: 'array', items: ref('Warning') }, missing: { type: 'array', items: { type: 'string' } }, variables: { type: 'object' } },
    },
    MessageRecord: {
      type: 'object',
      required: ['id', 'status', 'createdAt', 'project', 'tokenHint', 'template', 'from', 'to', 'subject', 'templateVariables', 'html', 'text', 'warnings', 'recipients'],
      properties: {
        id: { type: 'string', pattern: '^msg_' },
        status: { type: 'string', enum: [...MESSAGE_STATUSES], description: '`sent` until every recipient has settled; then `delivered` if all were, else the first of bounced, complained, suppressed, deferred that a recipient is in.' },
        recipients: { type: 'array', items: ref('Recipient'), description: 'One per `to` entry, in the same order.' },
        createdAt: { type: 'string', format: 'date-time' },
        project: { type: 'string', pattern: '^[0-9a-f]{8}$', description: 'First 8 hex characters of the SHA-256 of the token.' },
        tokenHint: { type: 'string', examples: ['sandbox_…f3a9'] },
        template: { type: 'string' },
        from: ref('Address'),
        to: { type: 'array', items: ref('Address') },
        subject: { type: 'string' },
        templateVariables: { type: 'object' },
        html: { type: 'string' },
        text: { type: 'string' },
        warnings: { type: 'array', items: ref('Warning') },
      },
    },
    RecipientStatus: { type: 'string', enum: [...MESSAGE_STATUSES] },
    RecipientEvent: {
      type: 'object',
      required: ['type', 'at'],
      properties: {
        type: { type: 'string', enum: ['sent', 'delivered', 'deferred', 'bounced', 'complained', 'suppressed', 'opened', 'clicked'] },
        at: { type: 'string', format: 'date-time' },
        url: { type: 'string', description: '`clicked`: the link.' },
        bounce: { type: 'object', properties: { type: { const: 'hard' } } },
        simulated: { const: true, description: 'Made with POST /_sandbox/api/messages/{id}/events.' },
      },
    },
    Recipient: {
      type: 'object',
      required: ['address', 'status', 'events'],
      properties: { address: { type: 'string' }, status: ref('RecipientStatus'), events: { type: 'array', items: ref('RecipientEvent'), description: 'Oldest first; the first is `sent`.' } },
    },
    SimulatedEvent: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: [...SIMULATED_EVENT_TYPES] },
        recipient: { type: 'string', description: 'A recipient\'s address; default: the first recipient.' },
        url: { type: 'string', description: '`clicked` only, and required there: a link that occurs in the message\'s HTML.' },
      },
    },
    Suppression: {
      type: 'object',
      required: ['address', 'project', 'reason', 'createdAt'],
      properties: {
        address: { type: 'string', description: 'Lower-cased.' },
        project: { type: 'string', pattern: '^[0-9a-f]{8}$' },
        reason: { type: 'string', enum: ['bounced', 'complained'] },
        createdAt: { type: 'string', format: 'date-time' },
        messageId: { type: 'string', description: 'The message whose bounce or complaint added it.' },
      },
    },
    SuppressionList: { type: 'object', required: ['suppressions', 'total'], properties: { suppressions: { type: 'array', items: ref('Suppression') }, total: { type: 'integer' } } },
    WebhookAttempt: {
      type: 'object',
      required: ['at', 'statusCode', 'error', 'durationMs', 'responseBody'],
      properties: {
        at: { type: 'string', format: 'date-time' },
        statusCode: { type: ['integer', 'null'], description: 'null when no response came.' },
        error: { type: ['string', 'null'], description: 'Why no response came: refused, timed out, …' },
        durationMs: { type: 'number' },
        responseBody: { type: 'string', description: 'The first 1024 characters of the response body.' },
        manual: { const: true, description: 'Made with POST /_sandbox/api/webhooks/{id}/retry.' },
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: ['id', 'webhookId', 'type', 'url', 'messageId', 'recipient', 'status', 'createdAt', 'nextAttemptAt', 'request', 'attempts'],
      properties: {
        id: { type: 'string', pattern: '^whd_' },
        webhookId: { type: 'string', pattern: '^evt_', description: 'The `webhook-id` header: the same for every attempt and URL of one event.' },
        type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
        url: { type: 'string' },
        messageId: { type: 'string' },
        recipient: { type: 'string' },
        status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        createdAt: { type: 'string', format: 'date-time' },
        nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
        request: { type: 'object', required: ['headers', 'body'], properties: { headers: { type: 'object', additionalProperties: { type: 'string' } }, body: { type: 'string' } } },
        attempts: { type: 'array', items: ref('WebhookAttempt') },
      },
    },
    WebhookList: {
      type: 'object',
      required: ['endpoints', 'deliveries', 'total', 'pending'],
      properties: { endpoints: { type: 'array', items: { type: 'string' } }, deliveries: { type: 'array', items: ref('WebhookDelivery') }, total: { type: 'integer' }, pending: { type: 'integer', description: 'Deliveries queued or waiting for a retry.' } },
    },
    ...webhookEventSchemas(),
    MessageList: { type: 'object', required: ['messages', 'total'], properties: { messages: { type: 'array', items: ref('MessageRecord') }, total: { type: 'integer', description: 'Matches before limit and offset.' } } },
    Finding: {
      type: 'object',
      required: ['check', 'code', 'severity', 'message', 'fix', 'line'],
      properties: {
        check: { type: 'string', examples: ['size', 'clients', 'images', 'links', 'text'] },
        code: { type: 'string', examples: ['gmail_clipping', 'image_missing_alt', 'localhost_link'] },
        severity: { type: 'string', enum: ['error', 'warning', 'info'] },
        message: { type: 'string' },
        fix: { type: 'string' },
        line: { type: ['integer', 'null'], description: 'Line in the rendered HTML.' },
      },
    },
    EmailChecks: {
      type: 'object',
      description: 'Checks of a rendered email: size, client support, images, links, plain text.',
      required: ['htmlBytes', 'findings', 'clients', 'counts'],
      properties: {
        htmlBytes: { type: 'integer' },
        findings: { type: 'array', items: ref('Finding') },
        clients: { type: 'array', items: { type: 'object', required: ['client', 'supported', 'used', 'score', 'unsupported'], properties: { client: { type: 'string' }, supported: { type: 'integer' }, used: { type: 'integer' }, score: { type: 'number', minimum: 0, maximum: 100 }, unsupported: { type: 'array', items: { type: 'string' } } } } },
        counts: { type: 'object', properties: { error: { type: 'integer' }, warning: { type: 'integer' }, info: { type: 'integer' } } },
      },
    },
    Health: {
      type: 'object',
      required: ['status', 'version', 'templates', 'messages'],
      properties: { status: { const: 'ok' }, version: { type: 'string' }, templates: { type: 'integer' }, messages: { type: 'integer' }, dropped: { type: 'integer' }, subscribers: { type: 'integer' } },
    },
    FaultInput: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: { type: 'integer', enum: [...FAULT_STATUSES] },
        count: { type: 'integer', minimum: 1, default: 1, description: 'How many matching sends fail.' },
        retryAfter: { type: 'integer', minimum: 0, default: 1, description: 'Seconds for Retry-After on a 429.' },
        match: {
          type: 'object',
          additionalProperties: false,
          properties: { template: { type: 'string', description: 'Exact template slug.' }, to: { type: 'string', description: 'Case-insensitive substring of any recipient.' } },
        },
      },
    },
    Fault: {
      type: 'object',
      required: ['id', 'status', 'remaining', 'match', 'retryAfter', 'createdAt'],
      properties: { id: { type: 'string' }, status: { type: 'integer', enum: [...FAULT_STATUSES] }, remaining: { type: 'integer' }, match: { type: 'object', properties: { template: { type: 'string' }, to: { type: 'string' } } }, retryAfter: { type: 'integer' }, createdAt: { type: 'string', format: 'date-time' } },
    },
  }
}

const WEBHOOK_SCHEMA_NAME = (type: WebhookEventType) => `WebhookEvent${type.replace('message.', '').replace(/^./, (c) => c.toUpperCase())}`

/** The payload of each webhook event (CONTRACT §7), for `components` and the top-level `webhooks`. */
function webhookEventSchemas(): Json {
  const data = (status: Json, extra: Json = {}, required: string[] = []) => ({
    type: 'object',
    required: ['id', 'project', 'template', 'recipient', 'subject', 'status', ...required],
    properties: {
      id: { type: 'string', pattern: '^msg_' },
      project: { type: 'string', pattern: '^[0-9a-f]{8}$' },
      template: { type: 'string' },
      recipient: { type: 'string', description: 'The bare address the event is about.' },
      subject: { type: 'string' },
      status,
      ...extra,
    },
  })
  const extras: Record<WebhookEventType, Json> = {
    'message.sent': data({ const: 'sent' }, { recipients: { type: 'array', items: { type: 'string' }, description: 'Every recipient; `recipient` is the first.' } }, ['recipients']),
    'message.delivered': data({ const: 'delivered' }),
    'message.deferred': data({ const: 'deferred' }),
    'message.bounced': data({ const: 'bounced' }, { bounce: { type: 'object', required: ['type'], properties: { type: { const: 'hard' } } } }, ['bounce']),
    'message.complained': data({ const: 'complained' }),
    'message.suppressed': data({ const: 'suppressed' }),
    'message.opened': data(ref('RecipientStatus')),
    'message.clicked': data(ref('RecipientStatus'), { url: { type: 'string' } }, ['url']),
  }
  const schemas: Json = {}
  for (const type of WEBHOOK_EVENT_TYPES) {
    schemas[WEBHOOK_SCHEMA_NAME(type)] = { type: 'object', required: ['type', 'timestamp', 'data'], properties: { type: { const: type }, timestamp: { type: 'string', format: 'date-time' }, data: extras[type] } }
  }
  return schemas
}

const WEBHOOK_SUMMARIES: Record<WebhookEventType, string> = {
  'message.sent': 'Every accepted send, before any of its recipients\' events.',
  'message.delivered': 'A recipient got the message.',
  'message.deferred': 'A soft bounce: delivery is retried (delivered at the next step).',
  'message.bounced': 'A hard bounce; the address joins the project\'s suppression list.',
  'message.complained': 'A spam complaint (after delivered); the address joins the suppression list.',
  'message.suppressed': 'Not sent: the address is on the project\'s suppression list.',
  'message.opened': 'A simulated open.',
  'message.clicked': 'A simulated click on a link of the HTML.',
}

/** OpenAPI 3.1 `webhooks`: what sendbox posts to every --webhook URL, signed per Standard Webhooks. */
function webhooks(): Json {
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })
  const parameters = [
    header('webhook-id', 'The event\'s id (`evt_…`), the same on every retry: drop duplicates by it.'),
    header('webhook-timestamp', 'Unix seconds of this attempt.'),
    header('webhook-signature', '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` with the key of the `whsec_…` secret.'),
  ]
  const result: Json = {}
  for (const type of WEBHOOK_EVENT_TYPES) {
    result[type] = {
      post: {
        operationId: `webhook_${type.replace('.', '_')}`,
        summary: WEBHOOK_SUMMARIES[type],
        description: `Posted to every --webhook URL. Any other answer than a 2xx within 5 s is retried with exponential backoff (--webhook-retries, first after 1 s); one message's events reach a URL in order.`,
        parameters,
        requestBody: { required: true, ...json(ref(WEBHOOK_SCHEMA_NAME(type))) },
        responses: { '2XX': { description: 'Received; any 2xx counts.' } },
      },
    }
  }
  return result
}

const ADDRESS = pathParam('address', 'An address (case-insensitive); encode `+` and `@` or not.')
const PROJECT = { name: 'project', in: 'query', required: false, description: 'Only this project (8 hex characters).', schema: { type: 'string' } }

function paths(): Json {
  const authErrors: ErrorCode[] = ['unauthorized', 'sandbox_token_required']
  return {
    '/messages': {
      post: {
        operationId: 'sendMessage',
        tags: API,
        summary: 'Send a message: render a template and store the result.',
        description: 'Checks, in this order, and the first failure answers: auth (401/403), content type and size (415/413), JSON syntax (400), shape (422 validation_failed), template (422), variables (422 missing_variables), render (422 render_failed). A token starting with `sandbox_fault_<status>` always gets that status.',
        requestBody: { required: true, ...json(ref('SendRequest')) },
        responses: {
          '201': { description: 'Sent (stored in the sandbox).', headers: { Location: { description: '`/_sandbox/api/messages/<id>`', schema: { type: 'string' } } }, ...json(ref('SendResponse')) },
          ...errorResponses(SEND_ERROR_CODES),
        },
      },
    },
    '/templates': {
      get: { operationId: 'listTemplates', tags: API, summary: 'Every template.', responses: { '200': { description: 'The templates, by slug.', ...json({ type: 'object', required: ['templates'], properties: { templates: { type: 'array', items: ref('TemplateSummary') } } }) }, ...errorResponses(authErrors) } },
    },
    '/templates/{slug}': {
      get: {
        operationId: 'getTemplate',
        tags: API,
        summary: 'One template, with the variables it expects.',
        parameters: [SLUG],
        responses: { '200': { description: 'The template.', ...json(ref('Template')) }, ...errorResponses([...authErrors, 'invalid_slug', 'template_not_found', 'template_invalid']) },
      },
    },
    '/_sandbox/api/health': {
      get: { operationId: 'health', tags: INSPECTOR, security: PUBLIC, summary: 'Liveness and counts.', responses: { '200': { description: 'Up.', ...json(ref('Health')) }, ...errorResponses([]) } },
    },
    '/_sandbox/api/openapi.json': {
      get: { operationId: 'openapi', tags: INSPECTOR, security: PUBLIC, summary: 'This document.', responses: { '200': { description: 'OpenAPI 3.1.', ...json({ type: 'object' }) }, ...errorResponses([]) } },
    },
    '/_sandbox/api/messages': {
      get: { operationId: 'listMessages', tags: INSPECTOR, security: PUBLIC, summary: 'Stored messages, newest first.', parameters: [...FILTER_PARAMETERS, ...PAGING_PARAMETERS], responses: { '200': { description: 'A page of messages.', ...json(ref('MessageList')) }, ...errorResponses(['invalid_parameter']) } },
      delete: { operationId: 'clearMessages', tags: INSPECTOR, security: PUBLIC, summary: 'Clear the log, or the messages the filters match.', parameters: FILTER_PARAMETERS, responses: { ...noContent, ...errorResponses(['invalid_parameter']) } },
    },
    '/_sandbox/api/messages/wait': {
      get: {
        operationId: 'waitForMessage',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'The newest matching message, or the first to arrive before the timeout.',
        parameters: [...FILTER_PARAMETERS, TIMEOUT_PARAMETER],
        responses: { '200': { description: 'The message.', ...json(ref('MessageRecord')) }, ...errorResponses(['invalid_parameter', 'wait_timeout']) },
      },
    },
    '/_sandbox/api/messages/{id}': {
      get: { operationId: 'getMessage', tags: INSPECTOR, security: PUBLIC, summary: 'One message.', parameters: [ID], responses: { '200': { description: 'The record.', ...json(ref('MessageRecord')) }, ...errorResponses(['message_not_found']) } },
      delete: { operationId: 'deleteMessage', tags: INSPECTOR, security: PUBLIC, summary: 'Delete one message.', parameters: [ID], responses: { ...noContent, ...errorResponses(['message_not_found']) } },
    },
    '/_sandbox/api/messages/{id}/html': {
      get: { operationId: 'getMessageHtml', tags: INSPECTOR, security: PUBLIC, summary: 'The rendered HTML, with a sandboxing Content-Security-Policy.', parameters: [ID, IMAGES], responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: { type: 'string' } } } }, ...errorResponses(['message_not_found']) } },
    },
    '/_sandbox/api/messages/{id}/text': {
      get: { operationId: 'getMessageText', tags: INSPECTOR, security: PUBLIC, summary: 'The plain-text version.', parameters: [ID], responses: { '200': { description: 'Text.', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses(['message_not_found']) } },
    },
    '/_sandbox/api/messages/{id}/checks': {
      get: { operationId: 'checkMessage', tags: INSPECTOR, security: PUBLIC, summary: 'Email checks of the stored message.', parameters: [ID], responses: { '200': { description: 'The checks.', ...json(ref('EmailChecks')) }, ...errorResponses(['message_not_found']) } },
    },
    '/_sandbox/api/messages/{id}/eml': {
      get: { operationId: 'getMessageEml', tags: INSPECTOR, security: PUBLIC, summary: 'An RFC 5322 message.', parameters: [ID], responses: { '200': { description: 'message/rfc822, as an attachment.', content: { 'message/rfc822': { schema: { type: 'string' } } } }, ...errorResponses(['message_not_found']) } },
    },
    '/_sandbox/api/events': {
      get: {
        operationId: 'events',
        tags: INSPECTOR,
        security: PUBLIC,
        summary:
          'Server-Sent Events: `message` (a record), `deleted` ({ id }), `cleared` ({ count }), `template` ({ slug, change, source, path }), `status` ({ id, status, recipient, recipientIndex, recipientStatus, event }), `webhook` (a delivery), `suppression` ({ change, suppressions }); a heartbeat comment every 15 s.',
        responses: { '200': { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } }, ...errorResponses([]) },
      },
    },
    '/_sandbox/api/templates': {
      get: { operationId: 'inspectTemplates', tags: INSPECTOR, security: PUBLIC, summary: 'Every template with its fixture cases.', responses: { '200': { description: 'The templates.', ...json({ type: 'object', required: ['templates'], properties: { templates: { type: 'array', items: { allOf: [ref('TemplateSummary'), { type: 'object', properties: { fixtures: { type: 'array', items: ref('FixtureCase') } } }] } } } }) }, ...errorResponses([]) } },
    },
    '/_sandbox/api/templates/{slug}': {
      get: { operationId: 'inspectTemplate', tags: INSPECTOR, security: PUBLIC, summary: 'Source, variables, required paths, declared variables, fixture cases.', parameters: [SLUG], responses: { '200': { description: 'The template.', ...json(ref('TemplateDetail')) }, ...errorResponses(['template_not_found', 'template_invalid']) } },
    },
    '/_sandbox/api/templates/{slug}/render': {
      get: { operationId: 'renderFixture', tags: INSPECTOR, security: PUBLIC, summary: 'Render with a fixture case (or front-matter examples); missing variables render empty and are listed.', parameters: [SLUG, CASE], responses: { '200': { description: 'The render.', ...json(ref('Preview')) }, ...errorResponses(['template_not_found', 'template_invalid', 'fixture_not_found', 'fixture_invalid', 'render_failed']) } },
      post: {
        operationId: 'renderVariables',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Render with the posted variables.',
        parameters: [SLUG],
        requestBody: { required: true, ...json({ type: 'object', properties: { variables: { type: 'object' } } }) },
        responses: { '200': { description: 'The render.', ...json(ref('Preview')) }, ...errorResponses(['template_not_found', 'template_invalid', 'invalid_json', 'payload_too_large', 'validation_failed', 'render_failed']) },
      },
    },
    '/_sandbox/api/templates/{slug}/checks': {
      get: { operationId: 'checkFixture', tags: INSPECTOR, security: PUBLIC, summary: 'Email checks of the template rendered with a fixture case (or front-matter examples).', parameters: [SLUG, CASE], responses: { '200': { description: 'The checks.', ...json(ref('EmailChecks')) }, ...errorResponses(['template_not_found', 'template_invalid', 'fixture_not_found', 'fixture_invalid', 'render_failed']) } },
      post: {
        operationId: 'checkVariables',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Email checks of the template rendered with the posted variables.',
        parameters: [SLUG],
        requestBody: { required: true, ...json({ type: 'object', properties: { variables: { type: 'object' } } }) },
        responses: { '200': { description: 'The checks.', ...json(ref('EmailChecks')) }, ...errorResponses(['template_not_found', 'template_invalid', 'invalid_json', 'payload_too_large', 'validation_failed', 'render_failed']) },
      },
    },
    '/_sandbox/api/templates/{slug}/preview': {
      get: { operationId: 'previewTemplate', tags: INSPECTOR, security: PUBLIC, summary: 'The rendered HTML, sandboxed, for an iframe.', parameters: [SLUG, CASE, IMAGES], responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: { type: 'string' } } } }, ...errorResponses(['template_not_found', 'template_invalid', 'fixture_not_found', 'fixture_invalid', 'render_failed']) } },
    },
    '/_sandbox/api/templates/{slug}/fixtures': {
      post: {
        operationId: 'saveFixtureCase',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Save variables as a fixture case, fixtures/<slug>/<name>.json.',
        parameters: [SLUG],
        requestBody: { required: true, ...json({ type: 'object', required: ['name', 'variables'], properties: { name: { type: 'string', description: 'A case name (not "default").' }, variables: { type: 'object' }, overwrite: { type: 'boolean', default: false } } }) },
        responses: { '201': { description: 'Saved.', ...json({ type: 'object', required: ['name', 'file'], properties: { name: { type: 'string' }, file: { type: 'string' } } }) }, ...errorResponses(['template_not_found', 'template_invalid', 'invalid_json', 'payload_too_large', 'validation_failed', 'fixture_exists']) },
      },
    },
    '/_sandbox/api/previews': {
      post: {
        operationId: 'createPreview',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Render a template with posted variables and keep the HTML (the newest 50) for a sandboxed frame.',
        requestBody: { required: true, ...json({ type: 'object', required: ['template'], properties: { template: { type: 'string' }, variables: { type: 'object' } } }) },
        responses: {
          '201': { description: 'Rendered.', ...json({ type: 'object', required: ['id', 'url', 'text', 'warnings', 'missing'], properties: { id: { type: 'string' }, url: { type: 'string' }, text: { type: 'string' }, warnings: { type: 'array', items: ref('Warning') }, missing: { type: 'array', items: { type: 'string' } } } }) },
          ...errorResponses(['template_not_found', 'template_invalid', 'invalid_json', 'payload_too_large', 'validation_failed', 'render_failed']),
        },
      },
    },
    '/_sandbox/api/previews/{id}': {
      get: { operationId: 'getPreview', tags: INSPECTOR, security: PUBLIC, summary: 'A kept preview\'s HTML, sandboxed.', parameters: [pathParam('id', 'A preview id (`pv_…`).'), IMAGES], responses: { '200': { description: 'HTML.', content: { 'text/html': { schema: { type: 'string' } } } }, ...errorResponses(['preview_not_found']) } },
    },
    '/_sandbox/api/messages/{id}/events': {
      post: {
        operationId: 'simulateEvent',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Simulate an event for a recipient (the first by default): appended, states updated, webhook fired.',
        description: 'Checks, in this order: media type (415), size (413), JSON (400), shape (422 validation_failed), the message (404), the recipient (422 recipient_not_found), a clicked url in the HTML (422 url_not_in_message). A simulated event takes its recipient over: its automatic steps still to come are dropped.',
        parameters: [ID],
        requestBody: { required: true, ...json(ref('SimulatedEvent')) },
        responses: {
          '201': { description: 'Appended; the message after it.', ...json(ref('MessageRecord')) },
          ...errorResponses(['unsupported_media_type', 'payload_too_large', 'invalid_json', 'validation_failed', 'message_not_found', 'recipient_not_found', 'url_not_in_message']),
        },
      },
    },
    '/_sandbox/api/webhooks': {
      get: {
        operationId: 'listWebhookDeliveries',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: `Webhook deliveries with every attempt, newest first (finished ones: the newest ${HISTORY_ATTEMPTS} attempts; pending ones: all).`,
        parameters: [
          stringParam('message', 'Only this message\'s deliveries.'),
          { name: 'type', in: 'query', required: false, schema: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] } },
          { name: 'status', in: 'query', required: false, schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: WEBHOOK_LIST_MAX_LIMIT, default: WEBHOOK_LIST_DEFAULT_LIMIT } },
        ],
        responses: { '200': { description: 'The deliveries.', ...json(ref('WebhookList')) }, ...errorResponses(['invalid_parameter']) },
      },
    },
    '/_sandbox/api/webhooks/{id}': {
      get: { operationId: 'getWebhookDelivery', tags: INSPECTOR, security: PUBLIC, summary: 'One delivery.', parameters: [pathParam('id', 'A delivery id (`whd_…`).')], responses: { '200': { description: 'The delivery.', ...json(ref('WebhookDelivery')) }, ...errorResponses(['webhook_delivery_not_found']) } },
    },
    '/_sandbox/api/webhooks/{id}/retry': {
      post: {
        operationId: 'retryWebhookDelivery',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Send a delivery once more, now (same webhook-id, fresh signature); answers after that attempt.',
        parameters: [pathParam('id', 'A delivery id (`whd_…`).')],
        responses: { '200': { description: 'The delivery with the new attempt.', ...json(ref('WebhookDelivery')) }, ...errorResponses(['webhook_delivery_not_found']) },
      },
    },
    '/_sandbox/api/suppressions': {
      get: { operationId: 'listSuppressions', tags: INSPECTOR, security: PUBLIC, summary: 'The suppression list, newest first.', parameters: [PROJECT, stringParam('address', 'Only this address.')], responses: { '200': { description: 'The list.', ...json(ref('SuppressionList')) }, ...errorResponses([]) } },
      delete: { operationId: 'clearSuppressions', tags: INSPECTOR, security: PUBLIC, summary: 'Empty the list (or a project\'s part of it).', parameters: [PROJECT], responses: { ...noContent, ...errorResponses([]) } },
    },
    '/_sandbox/api/suppressions/{address}': {
      get: { operationId: 'getSuppression', tags: INSPECTOR, security: PUBLIC, summary: 'An address\'s suppressions (one per project).', parameters: [ADDRESS, PROJECT], responses: { '200': { description: 'The entries.', ...json(ref('SuppressionList')) }, ...errorResponses(['suppression_not_found']) } },
      delete: { operationId: 'deleteSuppression', tags: INSPECTOR, security: PUBLIC, summary: 'Take an address off the list (for every project, or `?project=`).', parameters: [ADDRESS, PROJECT], responses: { ...noContent, ...errorResponses(['suppression_not_found']) } },
    },
    '/_sandbox/api/faults': {
      post: {
        operationId: 'armFault',
        tags: INSPECTOR,
        security: PUBLIC,
        summary: 'Make the next `count` matching sends fail with `status` (code simulated_fault; not stored).',
        requestBody: { required: true, ...json(ref('FaultInput')) },
        responses: { '201': { description: 'Armed.', ...json(ref('Fault')) }, ...errorResponses(['invalid_json', 'payload_too_large', 'validation_failed']) },
      },
      get: { operationId: 'listFaults', tags: INSPECTOR, security: PUBLIC, summary: 'The armed faults.', responses: { '200': { description: 'Armed faults.', ...json({ type: 'object', required: ['faults'], properties: { faults: { type: 'array', items: ref('Fault') } } }) }, ...errorResponses([]) } },
      delete: { operationId: 'clearFaults', tags: INSPECTOR, security: PUBLIC, summary: 'Disarm every fault.', responses: { ...noContent, ...errorResponses([]) } },
    },
  }
}

/** The whole document. `serverUrl` is where the running sandbox answers. */
export function openApiDocument(options: { version: string; serverUrl?: string }): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'sendbox',
      version: options.version,
      description: 'A local sandbox of a message-sending API: the emulated API (POST /messages, GET /templates) and sendbox\'s own inspector under /_sandbox/api.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    tags: [
      { name: 'api', description: 'The emulated service; every request carries `Authorization: token <API_TOKEN>` with a sandbox token.' },
      { name: 'inspector', description: 'sendbox\'s own API, unauthenticated.' },
    ],
    security: [{ token: [] }],
    paths: paths(),
    webhooks: webhooks(),
    components: {
      securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The header value is `token <API_TOKEN>` ("token" matched case-insensitively). Only sandbox tokens are accepted: by default any starting with `sandbox_`.' },
      },
      schemas: schemas(),
    },
  }
}

export function registerOpenApiRoute(app: H3, ctx: AppContext): void {
  route(app, '/_sandbox/api/openapi.json', {
    GET: (event) => openApiDocument({ version: ctx.version, serverUrl: event.url.origin }),
  })
}
