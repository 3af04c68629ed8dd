import { HTTPResponse, type H3, type H3Event } from 'h3'
import * as v from 'valibot'
import type { AppContext } from './context.js'
import { object, parse, problemsOf, type JsonSchema, type Schema } from '../lib/schema.js'
import { assertJsonContentType, parseJsonBody, readBodyText } from './body.js'
import type { ErrorRef } from './error-catalog.js'
import { apiError, asLogWriteFailure } from './errors.js'
import { badParameter, readParam, type Param, type ParamValues } from './params.js'
import { asJson, route, type RouteHandler } from './route.js'

/**
 * One definition per operation: its method, path, parameters, body and answer, each a schema
 * of the kit (src/lib/schema.ts, Valibot), its error codes, and its handler. From the same
 * objects `registerOperations` validates every request before the handler runs (the handler
 * gets typed values, and the compiler holds what it returns to the success schema), and
 * `openApiDocument` (./openapi.ts) writes the document: it cannot list a parameter the route
 * ignores, or promise an answer the handler does not give.
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
type Params = Record<string, Param>

/** What a route lets a caller reach (the securities of ./viewer.ts). */
export type Access =
  /** Answers without a token (health, which then says less). */
  | 'public'
  /** The caller's project's data only: messages, events, waits, faults, suppressions… */
  | 'project'
  /** What every project shares (templates, previews, snapshot statuses): any valid token. */
  | 'shared'
  /** Changes what every project shares (fixtures, snapshots): an admin token. */
  | 'admin'

/** Who may call, checked before anything else (docs/api.md#the-api: auth is step 1). */
export interface Security<C> {
  /** The OpenAPI security scheme's name. */
  scheme: string
  /**
   * What an inspector route lets its caller reach (./viewer.ts): every `/_sandbox/api/` route
   * must say it, or `registerOperations` refuses it.
   */
  access?: Access
  /** The caller, or throws (401, 403, and whatever answers right after authentication). */
  check(event: H3Event, ctx: AppContext): C
  /** The errors `check` can answer with, documented on every operation that uses it. */
  errors: readonly ErrorRef[]
  /** Request headers `check` reads, documented as parameters. */
  headers?: Params
}

/** What the document says of a body at the time it is asked for (docs/api.md#openapi). */
export interface BodyDocument {
  schema: JsonSchema
  /** Named schemas the body's schema refers to (`#/components/schemas/<name>`). */
  components?: Record<string, JsonSchema>
  /** Request examples, by name: each one a request that succeeds. */
  examples?: Record<string, { summary: string; value: unknown }>
}

export interface BodySpec<S extends Schema> {
  description: string
  /** The JSON body: every problem at once, as `422 validation_failed`. */
  schema: S
  /** Read instead of `schema` under --lenient (the same output: unknown fields pass). */
  lenient?: Schema<v.InferOutput<S>>
  /** What the 422's message calls the body: "The message is not valid: check to[1]." */
  noun?: string
  /** Bytes accepted; default `--max-body`. */
  limit?: (ctx: AppContext) => number
  /** The body as the document shows it now (default: `schema` as it is). */
  document?: (ctx: AppContext, schema: JsonSchema) => BodyDocument
}

export interface Success<S extends Schema | undefined> {
  status: 200 | 201 | 204
  description: string
  /** The JSON answer; the handler must return what it describes. */
  schema?: S
  /** The media type of an answer that is not JSON (the handler returns a Response). */
  contentType?: string
  headers?: Record<string, { description: string; schema: Schema }>
}

/** A request the document shows, and the answer it gets (the examples tests send each one). */
export interface OperationExample {
  summary: string
  params?: Record<string, string>
  query?: Record<string, string>
  body?: unknown
  /**
   * The status it gets; default the success status. A request that fails is shown in the
   * document as its answer only (docs/api.md#openapi: request examples are requests that succeed).
   */
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

type MaybePromise<T> = T | Promise<T>
/** What a handler returns: the success schema's value (or a Response); nothing for a 204. */
export type Answer<S extends Schema | undefined> = MaybePromise<
  | (S extends Schema ? v.InferOutput<S> : undefined)
  | Response
  | HTTPResponse
  // biome-ignore lint/suspicious/noConfusingVoidType: a 204's handler returns nothing
  | void
>

export interface OperationSpec<
  P extends Params,
  Q extends Params,
  B extends Schema,
  S extends Schema | undefined,
  C,
> {
  method: Method
  /** An h3 route pattern: `/_sandbox/api/messages/:id`. */
  path: string
  operationId: string
  tag: 'api' | 'inspector'
  summary: string
  description: string
  security?: Security<C>
  params?: P
  /** Query parameters; any other is refused (400 invalid_parameter, with a did-you-mean). */
  query?: Q
  body?: BodySpec<B>
  success: Success<S>
  /** Errors the handler itself raises (parameters, body and security add their own). */
  errors?: readonly ErrorRef[]
  examples?: Record<string, OperationExample>
  /** The success schema's value (sent with `success.status`), a Response or HTTPResponse (a Node stream body), or nothing for a 204. */
  handler(input: HandlerInput<P, Q, v.InferOutput<B>, C>): Answer<S>
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
  }): Promise<unknown> | undefined
}

// Handlers are contravariant in their input; the list of operations holds any of them.
// biome-ignore lint/suspicious/noExplicitAny: contravariance, as said above
export type Operation = OperationSpec<any, any, any, any, any>

/**
 * Types an operation from its schemas and security (returns it unchanged): the handler's input
 * is what they read, and what it returns must be what the success schema describes.
 */
export function defineOperation<
  // biome-ignore lint/complexity/noBannedTypes: {} is "no parameters", the default
  P extends Params = {},
  // biome-ignore lint/complexity/noBannedTypes: as above
  Q extends Params = {},
  B extends Schema = Schema<undefined>,
  S extends Schema | undefined = undefined,
  C = undefined,
>(spec: OperationSpec<P, Q, B, S, C>): OperationSpec<P, Q, B, S, C> {
  return spec
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
  // Every operation refuses a query parameter it does not take, and a bad value of one it does.
  refs.push([400, 'invalid_parameter'])
  if (op.body)
    refs.push(
      [415, 'unsupported_media_type'],
      [400, 'invalid_json'],
      [413, 'payload_too_large'],
      [422, 'validation_failed'],
    )
  refs.push(...(op.errors ?? []), [405, 'method_not_allowed'], [500, 'internal_error'])
  const seen = new Set<string>()
  return refs.filter(([status, code]) => {
    const key = `${status} ${code}`
    return seen.has(key) ? false : (seen.add(key), true)
  })
}

/** The route's path parameters, each read by its schema (percent-decoded first). */
function readPathParams(params: Params | undefined, event: H3Event): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, param] of Object.entries(params ?? {})) {
    let raw = param.read?.(event) ?? event.context.params?.[name] ?? ''
    try {
      raw = decodeURIComponent(raw)
    } catch {
      // Malformed escapes stay as sent; the schema refuses them.
    }
    out[name] = readParam(param, name, raw)
  }
  return out
}

/** One schema for an operation's query: its parameters, and no others. */
function querySchema(query: Params | undefined, method: Method) {
  const entries = Object.fromEntries(
    Object.entries(query ?? {}).map(([name, param]) => [name, param.schema]),
  )
  return object(entries, {
    unknownField: (near, known) => {
      const hint = near
        ? ` (did you mean "${near}"?)`
        : known.length
          ? ` (known: ${known.join(', ')})`
          : ' (it takes none)'
      // Ignored, a misspelt filter (`?templte=welcome`) would widen a delete to every message.
      return `is not one this operation knows${hint}${method === 'DELETE' ? '; nothing was deleted' : ''}`
    },
  })
}

/** The query's values: the first of each name, every problem at once, the first one told. */
function readQuery(schema: Schema, search: URLSearchParams): Record<string, unknown> {
  const raw: Record<string, string> = {}
  for (const [name, value] of search) if (!Object.hasOwn(raw, name)) raw[name] = value
  const result = v.safeParse(schema, raw, { abortPipeEarly: true })
  if (result.success) return result.output as Record<string, unknown>
  const problems = problemsOf(result.issues).map(({ field, message }) => ({
    parameter: field.slice(0, 100),
    message,
  }))
  const [first, ...more] = problems
  throw badParameter(first!.parameter, first!.message, more)
}

/** The body read by its schema, or `422 validation_failed` listing every problem. */
function readBody(spec: BodySpec<Schema>, raw: unknown, ctx: AppContext): unknown {
  const parsed = parse(ctx.config.lenient && spec.lenient ? spec.lenient : spec.schema, raw)
  if (parsed.ok) return parsed.value
  const fields = [...new Set(parsed.problems.map((p) => p.field || 'the body'))].join(', ')
  throw apiError(
    422,
    'validation_failed',
    `The ${spec.noun ?? 'body'} is not valid: check ${fields}.`,
    { details: parsed.problems },
  )
}

/** The handler h3 runs: security, path and query parameters, body, then the operation's own. */
function handlerOf(op: Operation, ctx: AppContext): RouteHandler {
  const query = querySchema(op.query, op.method)
  return async (event) => {
    // What was read before a failure, for an operation's onError (the raw body, the caller).
    const read: { caller?: unknown; raw?: unknown } = {}
    try {
      const caller = (read.caller = op.security?.check(event, ctx))
      const params = readPathParams(op.params, event)
      const values = readQuery(query, event.url.searchParams)
      let body: unknown
      if (op.body) {
        // Every JSON body, not only a send's: a form or a no-cors fetch from a web page cannot
        // send application/json without a preflight, so this is part of the cross-site protection.
        assertJsonContentType(event)
        const text = await readBodyText(event, op.body.limit?.(ctx) ?? ctx.config.maxBody)
        body = readBody(op.body, (read.raw = parseJsonBody(text)), ctx)
      }
      const answer = await op.handler({ ctx, event, params, query: values, body, caller })
      if (answer instanceof Response || answer instanceof HTTPResponse) return answer
      if (answer === undefined && op.success.status === 204)
        return new Response(null, { status: 204 })
      event.res.status = op.success.status
      return asJson(event, answer)
    } catch (caught) {
      // A write of the log that failed is a 507 for the client, wherever it happened.
      const error = asLogWriteFailure(caught)
      // Awaited (a rejected send is written before its answer, so every process lists it), and
      // never instead of the answer: what it could not keep is not the client's error.
      await Promise.resolve(op.onError?.({ ctx, event, error, ...read })).catch(() => {})
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
    // A route that does not say what its caller may see would show every project's mail.
    if (op.path.startsWith('/_sandbox/api/') && !op.security?.access)
      throw new Error(`${op.method} ${op.path} does not say its access (src/http/viewer.ts)`)
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
