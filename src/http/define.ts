import { HTTPResponse, type H3, type H3Event } from 'h3'
import type { AppContext } from '../core/context.js'
import { parse, type JsonSchema, type Schema } from '../lib/schema.js'
import { assertJsonContentType, parseJsonBody, readBodyText } from './body.js'
import type { ErrorRef } from './error-catalog.js'
import { apiError, asLogWriteFailure } from './errors.js'
import { badParameter, type Param, type ParamValues } from './params.js'
import { nearest } from '../lib/suggest.js'
import { asJson, route, type RouteHandler } from './route.js'

/**
 * One definition per operation: its method, path, parameters, body, answers and error codes,
 * and its handler. `registerOperations` wires the handlers from it (checking parameters and
 * body before the handler runs) and `openApiDocument` (./openapi.ts) describes the same objects,
 * so the document cannot list a parameter the route ignores, or miss one it reads.
 *
 * A route module exports its operations as an array; adding a route is adding an entry:
 *
 * @example
 * export const healthOperations = [
 *   defineOperation({
 *     method: 'GET', path: '/_sandbox/api/health', operationId: 'health', tag: 'inspector',
 *     summary: 'Liveness and counts.', description: '…',
 *     success: { status: 200, description: 'Up.', schema: HEALTH },
 *     handler: ({ ctx }) => ({ status: 'ok', messages: ctx.log.count() }),
 *   }),
 * ]
 */

export type Method = 'GET' | 'POST' | 'DELETE'
export type { ErrorRef }
type Params = Record<string, Param<unknown>>

/** Who may call, checked before anything else (CONTRACT §1: auth is step 1). */
export interface Security<C> {
  /** The OpenAPI security scheme's name. */
  scheme: string
  /** The caller, or throws (401, 403, and whatever answers right after authentication). */
  check(event: H3Event, ctx: AppContext): C
  /** The errors `check` can answer with, documented on every operation that uses it. */
  errors: readonly ErrorRef[]
  /** Request headers `check` reads, documented as parameters. */
  headers?: Params
}

export interface BodySpec<B> {
  description: string
  json: JsonSchema
  /** The parsed body, or throws `422 validation_failed` listing every problem. */
  parse(value: unknown, ctx: AppContext): B
  /** Bytes accepted; default `--max-body`. */
  limit?: (ctx: AppContext) => number
  /** Refuse a body not sent as `application/json` (415). */
  checkMediaType?: boolean
}

export interface Success {
  status: 200 | 201 | 204
  description: string
  /** JSON Schema of a JSON answer. */
  schema?: JsonSchema
  /** The media type of an answer that is not JSON (the handler returns a Response). */
  contentType?: string
  headers?: Record<string, { description: string; schema: JsonSchema }>
}

/** A request the document shows, and the answer it gets (the examples test sends each one). */
export interface OperationExample {
  summary: string
  params?: Record<string, string>
  query?: Record<string, string>
  body?: unknown
  /** The status it gets; default the success status. */
  status?: number
  /** The answer (strings ending in "…" stand for any text starting so). */
  response?: unknown
}

export interface HandlerInput<P extends Params, Q extends Params, B, C> {
  ctx: AppContext
  event: H3Event
  params: ParamValues<P>
  query: ParamValues<Q>
  body: B
  caller: C
}

export interface OperationSpec<P extends Params, Q extends Params, B, C> {
  method: Method
  /** An h3 route pattern: `/_sandbox/api/messages/:id`. */
  path: string
  operationId: string
  tag: 'api' | 'inspector'
  summary: string
  description: string
  security?: Security<C>
  params?: P
  query?: Q
  body?: BodySpec<B>
  success: Success
  /** Errors the handler itself raises (parameters, body and security add their own). */
  errors?: readonly ErrorRef[]
  examples?: Record<string, OperationExample>
  /** A JSON-serialisable value (sent with `success.status`), a Response or HTTPResponse (a Node stream body), or nothing for a 204. */
  handler(input: HandlerInput<P, Q, B, C>): unknown
  /**
   * Told of any failure of this operation (auth, body, handler) before it answers, with what
   * was read by then: the caller once authenticated, the JSON body once parsed (unvalidated).
   */
  onError?(input: {
    ctx: AppContext
    event: H3Event
    error: unknown
    caller?: C | undefined
    raw?: unknown
  }): void
}

// Handlers are contravariant in their input; the list of operations holds any of them.
// biome-ignore lint/suspicious/noExplicitAny: contravariance, as said above
export type Operation = OperationSpec<any, any, any, any>

/** Types an operation from its parameters, body and security (returns it unchanged). */
export function defineOperation<
  // biome-ignore lint/complexity/noBannedTypes: {} is "no parameters", the default
  P extends Params = {},
  // biome-ignore lint/complexity/noBannedTypes: as above
  Q extends Params = {},
  B = undefined,
  C = undefined,
>(spec: OperationSpec<P, Q, B, C>): OperationSpec<P, Q, B, C> {
  return spec
}

/**
 * A JSON body checked by a schema of the kit: every problem at once, as `422 validation_failed`.
 *
 * @example
 * body: jsonBody(object({ variables: optional(jsonObject()) }), 'Variables to render with.')
 */
export function jsonBody<T>(
  schema: Schema<T>,
  description: string,
  options: Pick<BodySpec<T>, 'limit'> = {},
): BodySpec<T> {
  return {
    description,
    json: schema.json,
    parse(value) {
      const parsed = parse(schema, value)
      if (parsed.ok) return parsed.value
      const fields = [...new Set(parsed.problems.map((p) => p.field || 'the body'))].join(', ')
      throw apiError(422, 'validation_failed', `The body is not valid: check ${fields}.`, {
        details: parsed.problems,
      })
    },
    // Every JSON body, not only a send's: a form or a no-cors fetch from a web page cannot send
    // application/json without a preflight, so this is part of the cross-site protection.
    checkMediaType: true,
    ...options,
  }
}

/** The errors an operation can answer with, by status: its own, and those its parts bring. */
export function operationErrors(op: Operation): ErrorRef[] {
  // The guard (src/http/guard.ts) runs before every route: Host, cross-site, and on the
  // inspector the --inspector-password check.
  const refs: ErrorRef[] = [
    [403, 'host_not_allowed'],
    [403, 'cross_origin_forbidden'],
    ...(op.path.startsWith('/_sandbox/') ? ([[401, 'unauthorized']] as const) : []),
    ...(op.security?.errors ?? []),
  ]
  for (const param of Object.values((op.params ?? {}) as Params)) refs.push(...(param.errors ?? []))
  if (Object.keys(op.query ?? {}).length > 0) refs.push([400, 'invalid_parameter'])
  if (op.body) {
    refs.push([400, 'invalid_json'], [413, 'payload_too_large'], [422, 'validation_failed'])
    if (op.body.checkMediaType) refs.push([415, 'unsupported_media_type'])
  }
  refs.push(...(op.errors ?? []), [405, 'method_not_allowed'], [500, 'internal_error'])
  const seen = new Set<string>()
  return refs.filter(([status, code]) => {
    const key = `${status} ${code}`
    return seen.has(key) ? false : (seen.add(key), true)
  })
}

function readParams(
  params: Params | undefined,
  read: (name: string) => string | null,
  event: H3Event,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, param] of Object.entries(params ?? {}))
    out[name] = param.parse(read(name), name, event)
  return out
}

/**
 * A DELETE with a query parameter it does not know is refused: ignored, a misspelt filter
 * (`?templte=welcome`) would widen the delete to every message.
 */
function refuseUnknownParams(params: Params | undefined, search: URLSearchParams): void {
  const known = Object.keys(params ?? {})
  for (const name of search.keys()) {
    if (known.includes(name)) continue
    const [best] = nearest(name, known, 1)
    const hint = best
      ? ` (did you mean "${best}"?)`
      : known.length
        ? ` (known: ${known.join(', ')})`
        : ''
    throw badParameter(
      name.slice(0, 100),
      `is not one this operation knows${hint}; nothing was deleted`,
    )
  }
}

/** The handler h3 runs: security, path and query parameters, body, then the operation's own. */
function handlerOf(op: Operation, ctx: AppContext): RouteHandler {
  return async (event) => {
    // What was read before a failure, for an operation's onError (the raw body, the caller).
    const read: { caller?: unknown; raw?: unknown } = {}
    try {
      const caller = (read.caller = op.security?.check(event, ctx))
      const params = readParams(op.params, (name) => event.context.params?.[name] ?? null, event)
      const search = event.url.searchParams
      if (op.method === 'DELETE') refuseUnknownParams(op.query, search)
      const query = readParams(op.query, (name) => search.get(name), event)
      let body: unknown
      if (op.body) {
        if (op.body.checkMediaType) assertJsonContentType(event)
        const text = await readBodyText(event, op.body.limit?.(ctx) ?? ctx.config.maxBody)
        body = op.body.parse((read.raw = parseJsonBody(text)), ctx)
      }
      const answer = await op.handler({ ctx, event, params, query, body, caller })
      if (answer instanceof Response || answer instanceof HTTPResponse) return answer
      if (answer === undefined && op.success.status === 204)
        return new Response(null, { status: 204 })
      event.res.status = op.success.status
      return asJson(event, answer)
    } catch (caught) {
      // A write of the log that failed is a 507 for the client, wherever it happened.
      const error = asLogWriteFailure(caught)
      op.onError?.({ ctx, event, error, ...read })
      throw error
    }
  }
}

/**
 * Registers operations on the app: one route per path, one handler per method (others are
 * 405 with Allow). `aliases` maps an extra, undocumented pattern to a documented path whose
 * handlers it shares (`/templates/**` answers like `/templates/:slug`). Returns the handlers
 * by path, for a middleware that must answer like a route.
 */
export function registerOperations(
  app: H3,
  ctx: AppContext,
  operations: readonly Operation[],
  aliases: Record<string, string> = {},
): Map<string, Partial<Record<Method, RouteHandler>>> {
  const byPath = new Map<string, Partial<Record<Method, RouteHandler>>>()
  for (const op of operations) {
    const handlers = byPath.get(op.path) ?? {}
    if (handlers[op.method]) throw new Error(`${op.method} ${op.path} is defined twice`)
    handlers[op.method] = handlerOf(op, ctx)
    byPath.set(op.path, handlers)
  }
  for (const [path, handlers] of byPath) route(app, path, handlers)
  for (const [alias, path] of Object.entries(aliases)) {
    const handlers = byPath.get(path)
    if (!handlers) throw new Error(`alias ${alias} names no defined path ${path}`)
    route(app, alias, handlers)
  }
  return byPath
}
