import type { H3, H3Event } from 'h3'
import { apiError, JSON_CONTENT_TYPE } from './errors.js'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'
export type RouteHandler = (event: H3Event) => unknown

/**
 * Registers one path with a handler per method. Any other method is 405 with an `Allow`
 * header, so every route answers the contract's way without repeating it. HEAD follows GET.
 */
export function route(
  app: H3,
  path: string,
  handlers: Partial<Record<Method, RouteHandler>>,
): void {
  const methods = (['GET', 'POST', 'PUT', 'DELETE'] as const).filter((method) => handlers[method])
  const allow = [...methods, ...(handlers.GET ? ['HEAD'] : [])].join(', ')
  app.all(path, (event) => {
    const method = event.req.method === 'HEAD' ? 'GET' : (event.req.method as Method)
    const handler = handlers[method]
    if (!handler) {
      throw apiError(
        405,
        'method_not_allowed',
        `${event.req.method} is not allowed here; this route accepts ${allow}.`,
        {
          headers: { allow },
        },
      )
    }
    const answer = handler(event)
    return answer instanceof Promise
      ? answer.then((value) => asJson(event, value))
      : asJson(event, answer)
  })
}

/** A plain object or array → its JSON text, labelled JSON_CONTENT_TYPE; anything else as is. */
export function asJson(event: H3Event, value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  const proto = Object.getPrototypeOf(value)
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value
  event.res.headers.set('content-type', JSON_CONTENT_TYPE)
  return JSON.stringify(value)
}
