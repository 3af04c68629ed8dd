import { webhookOperations } from '../http/delivery-components.js'
import { serverUrl } from '../http/url.js'
import { apiOperations } from '../api/index.js'
import { defineOperation, type Operation } from '../http/define.js'
import { openApiDocument } from '../http/openapi.js'
import { inspectorOperations } from '../inspector/index.js'

/**
 * GET /_sandbox/api/openapi.json: the OpenAPI 3.1 document of the emulated API and the
 * inspector, generated from the very operation definitions the routes are registered from.
 */

const DOCUMENT_INFO = {
  title: 'sendbox',
  description:
    "A local sandbox of a message-sending API: the emulated API (POST /messages, GET /templates) and sendbox's own inspector under /_sandbox/api.",
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

/** The document of these operations, as served by a sandbox at `serverUrl`. */
export function sandboxDocument(
  operations: readonly Operation[],
  version: string,
  serverUrl?: string,
) {
  return openApiDocument(operations, {
    ...DOCUMENT_INFO,
    version,
    webhooks: webhookOperations(),
    ...(serverUrl ? { serverUrl } : {}),
  })
}

export const openApiOperation = defineOperation({
  method: 'GET',
  path: '/_sandbox/api/openapi.json',
  operationId: 'openapi',
  tag: 'inspector',
  summary: 'This document.',
  description:
    'OpenAPI 3.1, generated from the definitions the routes run on; `servers` is where this sandbox answers.',
  success: {
    status: 200,
    description: 'The document.',
    schema: { type: 'object', additionalProperties: true },
  },
  // The server's own address, never the request's Host: a rebinding name must not be echoed back.
  handler: ({ ctx, event }) => {
    const socket = event.runtime?.node?.req?.socket
    return sandboxDocument(
      ALL_OPERATIONS,
      ctx.version,
      serverUrl(
        ctx.config.host,
        socket?.localPort ?? ctx.config.port,
        socket?.localAddress,
        ctx.config.https ? 'https' : 'http',
      ),
    )
  },
})

/** Every documented operation, in the document's order. */
export const ALL_OPERATIONS: readonly Operation[] = [
  ...apiOperations,
  ...inspectorOperations,
  openApiOperation,
]
