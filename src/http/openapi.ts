import { toJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import type { AppContext } from './context.js'
import { CONVERSION, tidy } from './json-schema.js'
import type { JsonSchema, Schema } from '../lib/schema.js'
import { operationErrors, type Operation, type OperationExample } from './define.js'
import {
  ERROR_ANSWERS,
  ERROR_CODES,
  errorSchemaName,
  type ErrorCode,
  type ErrorRef,
} from './error-catalog.js'
import type { Param } from './params.js'

/**
 * The OpenAPI 3.1 document, generated from the operation definitions (./define.ts): every
 * path, method, parameter, body, answer and error code comes from the objects the routes run
 * on, their schemas converted to JSON Schema 2020-12 by @valibot/to-json-schema. A schema made
 * with `component(name, …)` (src/lib/schema.ts) is written once under `components.schemas` and
 * referred to by name everywhere else. Loaded when the document is first asked for: a start
 * never reads this module or the converter.
 */

type Json = Record<string, unknown>

/** A webhook the server posts (OpenAPI 3.1 top-level `webhooks`). */
export interface WebhookDocument {
  operationId: string
  summary: string
  description: string
  /** Request headers, by name → description. */
  headers: Record<string, string>
  body: Schema
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
  /** Requests the server makes, not answers: one per event type. */
  webhooks?: Record<string, WebhookDocument>
  /** Whether a request example can be shown now (the templates and cases it names are loaded). */
  shows?: (example: OperationExample) => boolean
  /** The sandbox the document describes: bodies that depend on it (the templates) ask it. */
  ctx?: AppContext
}

/** Headers that errors of some statuses carry. */
const ERROR_HEADERS: Record<number, Record<string, { description: string; schema: Schema }>> = {
  401: { 'WWW-Authenticate': { description: 'Always `Token`.', schema: v.literal('Token') } },
  405: { Allow: { description: 'The methods this route accepts.', schema: v.string() } },
  429: {
    'Retry-After': {
      description: 'Seconds to wait before retrying.',
      schema: v.pipe(v.string(), v.regex(/^[0-9]+$/)),
    },
  },
}

/** `/a/:id/b` → `/a/{id}/b`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

// ---- schemas → JSON Schema ------------------------------------------------------------

/** The schemas a schema is made of (entries, items, options, wrapped, pipe, …). */
function partsOf(schema: Record<string, unknown>): unknown[] {
  const parts: unknown[] = [schema.wrapped, schema.item, schema.key, schema.value, schema.rest]
  if (Array.isArray(schema.pipe)) parts.push(...schema.pipe)
  if (Array.isArray(schema.options)) parts.push(...schema.options)
  if (Array.isArray(schema.items)) parts.push(...schema.items)
  if (schema.entries && typeof schema.entries === 'object')
    parts.push(...Object.values(schema.entries))
  return parts
}

/** Every named schema (`component`) reachable from these, by name; a name used twice throws. */
function namedSchemas(roots: readonly unknown[]): Record<string, Schema> {
  const named: Record<string, Schema> = {}
  const seen = new Set<unknown>()
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return
    seen.add(node)
    const schema = node as Record<string, unknown>
    if (schema.kind !== 'schema') return
    const title = (schema.pipe as Array<{ type?: string; title?: string }> | undefined)?.find(
      (item) => item.type === 'title',
    )?.title
    if (title) {
      if (named[title] && named[title] !== node) throw new Error(`two schemas are named ${title}`)
      named[title] = node as Schema
    }
    for (const part of partsOf(schema)) visit(part)
  }
  for (const root of roots) visit(root)
  return named
}

/**
 * Converts many schemas at once, so every named one is written (and converted) once: the JSON
 * of each, in order, and the components.
 */
function convertAll(schemas: readonly Schema[]): { json: JsonSchema[]; components: Json } {
  const definitions = namedSchemas(schemas)
  const all = v.object(Object.fromEntries(schemas.map((schema, i) => [`s${i}`, schema])))
  const converted = tidy(toJsonSchema(all, { ...CONVERSION, definitions })) as {
    properties: Record<string, JsonSchema>
    $defs?: Json
  }
  return {
    json: schemas.map((_, i) => converted.properties[`s${i}`]!),
    components: converted.$defs ?? {},
  }
}

/** Collects schemas to convert and hands back where each one's JSON will be. */
function schemaTable() {
  const schemas: Schema[] = []
  const slots = new Map<Schema, number>()
  return {
    /** A placeholder the JSON of `schema` replaces. */
    add(schema: Schema): JsonSchema {
      let slot = slots.get(schema)
      if (slot === undefined) {
        slot = schemas.length
        schemas.push(schema)
        slots.set(schema, slot)
      }
      return { [SLOT]: slot }
    },
    /** Converts what was added and puts each JSON in place of its placeholders. */
    resolve(tree: unknown): { tree: unknown; components: Json } {
      const { json, components } = convertAll(schemas)
      const fill = (node: unknown): unknown => {
        if (Array.isArray(node)) return node.map(fill)
        if (typeof node !== 'object' || node === null) return node
        const slot = (node as { [SLOT]?: number })[SLOT]
        const filled = Object.fromEntries(
          Object.entries(node).map(([key, value]) => [key, fill(value)]),
        )
        // A placeholder's own keys (a parameter's `default`) are added to the schema's JSON.
        return slot === undefined ? filled : { ...json[slot], ...filled }
      }
      return { tree: fill(tree), components }
    },
  }
}
const SLOT = Symbol('schema')
type Table = ReturnType<typeof schemaTable>

// ---- operations ---------------------------------------------------------------------------

/** A parameter's default: what its schema reads an absent value as (`limit` → 50). */
function defaultOf(param: Param): unknown {
  const absent = v.safeParse(param.schema, undefined)
  return absent.success ? absent.output : undefined
}

function parameters(op: Operation, table: Table, shown: [string, OperationExample][]): Json[] {
  const out: Json[] = []
  const add = (where: 'path' | 'query' | 'header', params: Record<string, Param> | undefined) => {
    for (const [name, param] of Object.entries(params ?? {})) {
      const key = where === 'path' ? 'params' : 'query'
      const named = shown.filter(([, example]) => example[key]?.[name] !== undefined)
      const fallback = defaultOf(param)
      out.push({
        name,
        in: where,
        required: where === 'path',
        description: param.description,
        schema: {
          ...table.add(param.schema),
          ...(fallback !== undefined ? { default: fallback } : {}),
        },
        ...(where !== 'header' && named.length
          ? {
              examples: Object.fromEntries(
                named.map(([id, example]) => [
                  id,
                  { summary: example.summary, value: example[key]![name] },
                ]),
              ),
            }
          : {}),
      })
    }
  }
  add('path', op.params)
  add('query', op.query)
  add('header', op.security?.headers)
  return out
}

const isSuccess = (op: Operation, example: OperationExample) =>
  (example.status ?? op.success.status) < 300

function responses(op: Operation, table: Table, examples: [string, OperationExample][]): Json {
  const examplesAt = (status: number) => {
    const entries = examples.filter(
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
  const headersOf = (headers: Record<string, { description: string; schema: Schema }>) =>
    Object.fromEntries(
      Object.entries(headers).map(([name, header]) => [
        name,
        { description: header.description, schema: table.add(header.schema) },
      ]),
    )
  const { success } = op
  const out: Json = {
    [success.status]: {
      description: success.description,
      ...(success.headers ? { headers: headersOf(success.headers) } : {}),
      ...(success.status === 204
        ? {}
        : {
            content: {
              [success.contentType ?? 'application/json']: {
                schema: success.schema ? table.add(success.schema) : { type: 'string' },
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
      ...(ERROR_HEADERS[status] ? { headers: headersOf(ERROR_HEADERS[status]) } : {}),
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

function requestBody(op: Operation, table: Table, requests: [string, OperationExample][]): Json {
  const body = op.body!
  const examples = requests.filter(([, example]) => example.body !== undefined)
  return {
    required: true,
    description: body.description,
    content: {
      'application/json': {
        schema: table.add(body.schema),
        ...(examples.length
          ? {
              examples: Object.fromEntries(
                examples.map(([key, example]) => [
                  key,
                  { summary: example.summary, value: example.body },
                ]),
              ),
            }
          : {}),
      },
    },
  }
}

/**
 * A body whose document depends on the sandbox (POST /messages and the templates loaded) is
 * rewritten from its schema's JSON by its `document`, which may add named schemas.
 */
function describeBodies(
  operations: readonly Operation[],
  paths: Json,
  info: DocumentInfo,
  components: Json,
): void {
  for (const op of operations) {
    if (!op.body?.document || !info.ctx) continue
    const item = (paths[openApiPath(op.path)] as Json)[op.method.toLowerCase()] as {
      requestBody: { content: Record<string, Json> }
    }
    const media = item.requestBody.content['application/json']!
    const described = op.body.document(info.ctx, media.schema as JsonSchema)
    media.schema = described.schema
    if (described.examples && Object.keys(described.examples).length)
      media.examples = described.examples
    else delete media.examples
    Object.assign(components, described.components ?? {})
  }
}

/**
 * The operation's description, and the rule every operation keeps: OpenAPI cannot say "no other
 * query parameters" (`additionalProperties` is for bodies), so each one says it in words.
 */
function described(op: Operation): string {
  const names = Object.keys(op.query ?? {})
  const rule = names.length
    ? `Query parameters other than ${names.map((name) => `\`${name}\``).join(', ')} are refused (400 invalid_parameter, naming the nearest).`
    : 'It takes no query parameters: any is refused (400 invalid_parameter).'
  return `${op.description} ${rule}`
}

function operationObject(op: Operation, table: Table, info: DocumentInfo): Json {
  const examples = Object.entries(op.examples ?? {}).filter(
    // A success shows only while what it names is loaded; a failure's answer always shows.
    ([, example]) => !isSuccess(op, example) || (info.shows?.(example) ?? true),
  )
  // docs/api.md#openapi: a request shown is one that succeeds; a failure is shown as its answer only.
  const requests = examples.filter(([, example]) => isSuccess(op, example))
  const params = parameters(op, table, requests)
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: described(op),
    // The inspector takes a token only with projects; health answers anyone, saying less.
    ...(op.security &&
    op.security.access !== 'public' &&
    (op.tag === 'api' || info.ctx?.config.projects)
      ? {}
      : { security: [] }),
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: requestBody(op, table, requests) } : {}),
    responses: responses(op, table, examples),
  }
}

function webhookObjects(webhooks: Record<string, WebhookDocument>, table: Table): Json {
  const out: Json = {}
  for (const [type, hook] of Object.entries(webhooks)) {
    out[type] = {
      post: {
        operationId: hook.operationId,
        summary: hook.summary,
        description: hook.description,
        parameters: Object.entries(hook.headers).map(([name, description]) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string' },
        })),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: table.add(hook.body) } },
        },
        responses: { '2XX': { description: 'Received; any 2xx counts.' } },
      },
    }
  }
  return out
}

/**
 * The OpenAPI 3.1 document of these operations.
 *
 * @example
 * openApiDocument([...apiOperations, ...inspectorOperations], { title: 'sendbox', version: '0.1.0', … })
 */
export function openApiDocument(operations: readonly Operation[], info: DocumentInfo): Json {
  const table = schemaTable()
  const paths: Json = {}
  for (const op of operations) {
    const path = openApiPath(op.path)
    paths[path] = {
      ...(paths[path] as Json | undefined),
      [op.method.toLowerCase()]: operationObject(op, table, info),
    }
  }
  const codes = new Set<ErrorCode>()
  for (const op of operations)
    for (const [, code] of operationErrors(op) as ErrorRef[]) codes.add(code)
  // Every error answer is a component (operations refer to it by name); and so its schema.
  for (const code of codes) table.add(ERROR_ANSWERS.get(code)!)
  const webhooks = info.webhooks ? webhookObjects(info.webhooks, table) : undefined
  const { tree, components } = table.resolve({ paths, webhooks })
  const resolved = tree as { paths: Json; webhooks?: Json }
  describeBodies(operations, resolved.paths, info, components)
  const schemas = Object.fromEntries(
    Object.entries(components).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )
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
    paths: resolved.paths,
    ...(resolved.webhooks ? { webhooks: resolved.webhooks } : {}),
    components: { securitySchemes: info.securitySchemes, schemas },
  }
}
