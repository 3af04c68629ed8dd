import * as v from 'valibot'
import type { AppContext } from '../http/context.js'
import { apiOperations } from '../api/index.js'
import { defineOperation, type Operation, type OperationExample } from '../http/define.js'
import { SHARED_ACCESS } from '../http/viewer.js'
import { webhookDocuments } from '../http/delivery-components.js'
import { JSON_CONTENT_TYPE } from '../http/errors.js'
import { serverUrl } from '../http/url.js'
import { inspectorOperations } from '../inspector/index.js'

/**
 * GET /_sandbox/api/openapi.json: the OpenAPI 3.1 document of the emulated API and the
 * inspector, generated from the very operation definitions the routes are registered from, and
 * from the templates loaded when it is asked for (docs/api.md#openapi). It is written once per state
 * of the templates (the catalog's version) and address, and served as that text until either
 * changes; the generator (and the JSON Schema converter) load on the first request.
 */

const DOCUMENT_INFO = {
  title: 'sendbox',
  description:
    "A local sandbox of a message-sending API: the emulated API (POST /messages, GET /templates) and sendbox's own inspector under /_sandbox/api. The document describes the templates loaded when it was asked for: POST /messages takes one of their slugs, with the variables that template needs.",
  tags: [
    {
      name: 'api',
      description:
        'The emulated service; every request carries `Authorization: token <API_TOKEN>` with a sandbox token.',
    },
    {
      name: 'inspector',
      description:
        "sendbox's own API: unauthenticated, unless the server runs with --inspector-password (then HTTP Basic, any user name). Closed to other websites (no CORS).",
    },
  ],
  securitySchemes: {
    token: {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description:
        'The header value is `token <API_TOKEN>` ("token" matched case-insensitively). Only sandbox tokens are accepted: by default any starting with `sandbox_`.',
    },
  },
  defaultSecurity: 'token',
}

/**
 * Whether a request example can be shown: one that names a template (a path's `slug`, a body's
 * `template`) or a fixture case shows only while that template, valid, and case are loaded, so
 * that a request shown is a request that succeeds (docs/api.md#openapi).
 */
export function exampleShows(ctx: AppContext, example: OperationExample): boolean {
  const body = (example.body ?? {}) as { template?: unknown; case?: unknown }
  const slug = example.params?.slug ?? (typeof body.template === 'string' ? body.template : null)
  if (slug === null) return true
  if (!ctx.catalog.lookup(slug).ok) return false
  const fixture = example.query?.case ?? (typeof body.case === 'string' ? body.case : null)
  return fixture === null || ctx.catalog.fixtures(slug).some((c) => c.name === fixture)
}

/** The document's text, as served by the sandbox at `url`: written again only when the templates change. */
async function documentText(ctx: AppContext, url: string): Promise<string> {
  const key = `${ctx.catalog.version()} ${url}`
  if (ctx.openApi?.key === key) return ctx.openApi.text
  const { openApiDocument } = await import('../http/openapi.js')
  const text = JSON.stringify(
    openApiDocument(ALL_OPERATIONS, {
      ...DOCUMENT_INFO,
      version: ctx.version,
      serverUrl: url,
      webhooks: webhookDocuments(),
      shows: (example) => exampleShows(ctx, example),
      ctx,
    }),
  )
  ctx.openApi = { key, text }
  return text
}

export const openApiOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/openapi.json',
  operationId: 'openapi',
  tag: 'inspector',
  security: SHARED_ACCESS,
  summary: 'This document.',
  description:
    'OpenAPI 3.1, generated from the definitions the routes run on and the templates loaded now (`POST /messages` lists their slugs and what each needs); `servers` is where this sandbox answers.',
  success: {
    status: 200,
    description: 'The document.',
    schema: v.record(v.string(), v.unknown()),
  },
  // The server's own address, never the request's Host: a rebinding name must not be echoed back.
  async handler({ ctx, event }) {
    const socket = event.runtime?.node?.req?.socket
    const url = serverUrl(
      ctx.config.host,
      socket?.localPort ?? ctx.config.port,
      socket?.localAddress,
      ctx.config.https ? 'https' : 'http',
    )
    return new Response(await documentText(ctx, url), {
      headers: { 'content-type': JSON_CONTENT_TYPE },
    })
  },
})

/** Every documented operation, in the document's order. */
export const ALL_OPERATIONS: readonly Operation[] = [
  ...apiOperations,
  ...inspectorOperations,
  openApiOperation,
]
