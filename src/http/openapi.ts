import type { JsonSchema } from '../lib/schema.js'
import { operationErrors, type Operation } from './define.js'
import { ERROR_CODES, type ErrorCode, type ErrorRef } from './error-catalog.js'

/**
 * The OpenAPI 3.1 document, generated from the operation definitions (./define.ts): every
 * path, method, parameter, body, answer and error code comes from the objects the routes run
 * on. Named schemas are written where they are used, with `component(name, schema)`, and
 * hoisted into `components.schemas` here.
 */

type Json = Record<string, unknown>

const COMPONENT = Symbol('component')

/**
 * A schema the document names (`$ref: #/components/schemas/<name>`). The object serialises as
 * the reference alone, so it can be embedded anywhere.
 *
 * @example
 * const ADDRESS = component('Address', { type: 'object', properties: { … } })
 * success: { status: 200, description: '…', schema: { type: 'array', items: ADDRESS } }
 */
export function component(name: string, schema: JsonSchema): JsonSchema {
  return Object.assign({ $ref: `#/components/schemas/${name}` }, { [COMPONENT]: schema })
}

/** Replaces every component with its reference, collecting its schema under its name. */
function hoist(value: unknown, components: Json): unknown {
  if (Array.isArray(value)) return value.map((item) => hoist(item, components))
  if (typeof value !== 'object' || value === null) return value
  const named = (value as { [COMPONENT]?: JsonSchema })[COMPONENT]
  if (named) {
    const ref = (value as { $ref: string }).$ref
    const name = ref.slice(ref.lastIndexOf('/') + 1)
    if (!(name in components)) {
      components[name] = {}
      components[name] = hoist(named, components)
    }
    return { $ref: ref }
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, hoist(item, components)]),
  )
}

/** `validation_failed` → `ValidationFailedError`; `internal_error` → `InternalError`. */
export function errorSchemaName(code: string): string {
  return `${code.replace(/_error$/, '').replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Error`
}

function errorSchema(code: ErrorCode): JsonSchema {
  const info = ERROR_CODES[code]
  const detail = 'detail' in info ? info.detail : undefined
  return {
    type: 'object',
    description: info.description,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'details'],
        properties: {
          code: { type: 'string', const: code },
          message: { type: 'string', description: 'A sentence a person can act on.' },
          details: detail
            ? { type: 'array', items: detail }
            : { type: 'array', maxItems: 0, description: 'Always empty for this code.' },
        },
      },
    },
  }
}

/** Headers that errors of some statuses carry. */
const ERROR_HEADERS: Record<number, Json> = {
  401: {
    'WWW-Authenticate': {
      description: 'Always `Token`.',
      schema: { type: 'string', const: 'Token' },
    },
  },
  405: { Allow: { description: 'The methods this route accepts.', schema: { type: 'string' } } },
  429: {
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
  },
}

/** `/a/:id/b` → `/a/{id}/b`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

function parameters(op: Operation): Json[] {
  const out: Json[] = []
  const add = (
    where: 'path' | 'query' | 'header',
    params:
      | Record<string, { description: string; json: JsonSchema; required: boolean }>
      | undefined,
    examples: (name: string) => Json | undefined,
  ) => {
    for (const [name, param] of Object.entries(params ?? {})) {
      const named = examples(name)
      out.push({
        name,
        in: where,
        required: where === 'path' ? true : param.required,
        description: param.description,
        schema: param.json,
        ...(named ? { examples: named } : {}),
      })
    }
  }
  const examplesOf = (where: 'params' | 'query') => (name: string) => {
    const entries = Object.entries(op.examples ?? {}).filter(
      ([, example]) => example[where]?.[name] !== undefined,
    )
    return entries.length
      ? Object.fromEntries(
          entries.map(([key, example]) => [
            key,
            { summary: example.summary, value: example[where]![name] },
          ]),
        )
      : undefined
  }
  add('path', op.params, examplesOf('params'))
  add('query', op.query, examplesOf('query'))
  add('header', op.security?.headers, () => undefined)
  return out
}

function responses(op: Operation): Json {
  const examplesAt = (status: number) => {
    const entries = Object.entries(op.examples ?? {}).filter(
      ([, example]) =>
        (example.status ?? op.success.status) === status && example.response !== undefined,
    )
    return entries.length
      ? {
          examples: Object.fromEntries(
            entries.map(([key, example]) => [
              key,
              { summary: example.summary, value: example.response },
            ]),
          ),
        }
      : {}
  }
  const { success } = op
  const out: Json = {
    [success.status]: {
      description: success.description,
      ...(success.headers ? { headers: success.headers } : {}),
      ...(success.status === 204
        ? {}
        : {
            content: {
              [success.contentType ?? 'application/json']: {
                schema: success.schema ?? { type: 'string' },
                ...examplesAt(success.status),
              },
            },
          }),
    },
  }
  const byStatus = new Map<number, ErrorCode[]>()
  for (const [status, code] of operationErrors(op))
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const refs = codes.map((code) => ({ $ref: `#/components/schemas/${errorSchemaName(code)}` }))
    out[status] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join(' '),
      ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
      content: {
        'application/json': {
          schema: refs.length === 1 ? refs[0] : { oneOf: refs },
          ...examplesAt(status),
        },
      },
    }
  }
  return out
}

function operationObject(op: Operation): Json {
  const params = parameters(op)
  const bodyExamples = Object.entries(op.examples ?? {}).filter(
    ([, example]) => example.body !== undefined,
  )
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: op.description,
    ...(op.security ? {} : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            description: op.body.description,
            content: {
              'application/json': {
                schema: op.body.json,
                ...(bodyExamples.length
                  ? {
                      examples: Object.fromEntries(
                        bodyExamples.map(([key, example]) => [
                          key,
                          { summary: example.summary, value: example.body },
                        ]),
                      ),
                    }
                  : {}),
              },
            },
          },
        }
      : {}),
    responses: responses(op),
  }
}

export interface DocumentInfo {
  title: string
  version: string
  description: string
  /** Where the running server answers. */
  serverUrl?: string
  tags: Array<{ name: string; description: string }>
  securitySchemes: Json
  /** The scheme every operation uses unless it says otherwise. */
  defaultSecurity: string
  /** OpenAPI 3.1 top-level `webhooks`: requests the server makes, not answers. */
  webhooks?: Json
}

/**
 * The OpenAPI 3.1 document of these operations.
 *
 * @example
 * openApiDocument([...apiOperations, ...inspectorOperations], { title: 'sendbox', version: '0.1.0', … })
 */
export function openApiDocument(operations: readonly Operation[], info: DocumentInfo): Json {
  const paths: Json = {}
  for (const op of operations) {
    const path = openApiPath(op.path)
    paths[path] = {
      ...(paths[path] as Json | undefined),
      [op.method.toLowerCase()]: operationObject(op),
    }
  }
  const codes = new Set<ErrorCode>()
  for (const op of operations)
    for (const [, code] of operationErrors(op) as ErrorRef[]) codes.add(code)
  const schemas: Json = {}
  const hoisted = hoist(paths, schemas) as Json
  const webhooks = info.webhooks ? (hoist(info.webhooks, schemas) as Json) : undefined
  for (const code of [...codes].sort()) schemas[errorSchemaName(code)] = errorSchema(code)
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    tags: info.tags,
    security: [{ [info.defaultSecurity]: [] }],
    paths: hoisted,
    ...(webhooks ? { webhooks } : {}),
    components: { securitySchemes: info.securitySchemes, schemas },
  }
}
