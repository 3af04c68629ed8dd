import { ServerResponse, STATUS_CODES, type IncomingMessage } from 'node:http'

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown

const nodeWriteHead = ServerResponse.prototype.writeHead

/** Node's writeHead, with Node's standard phrase wherever the reason is missing or empty. */
function writeHeadWithReason(
  this: ServerResponse,
  status: number,
  ...rest: unknown[]
): ServerResponse {
  // srvx passes the Response's statusText, which is "" unless a handler set one, and Node then
  // writes "HTTP/1.1 422 " with no phrase.
  if (typeof rest[0] === 'string' && rest[0] !== '')
    return Reflect.apply(nodeWriteHead, this, [status, ...rest]) as ServerResponse
  const headers = typeof rest[0] === 'string' ? rest.slice(1) : rest
  return Reflect.apply(nodeWriteHead, this, [
    status,
    STATUS_CODES[status] ?? 'Unknown',
    ...headers,
  ]) as ServerResponse
}

/**
 * Every status line with its reason phrase (`HTTP/1.1 422 Unprocessable Entity`, not
 * `HTTP/1.1 422 `): clients, proxies and logs show it, and RFC 9112 §4 gives every status one.
 *
 * @example
 * createServer(withReasonPhrases(toNodeHandler(app))).listen(0)
 */
export function withReasonPhrases(handler: NodeHandler): NodeHandler {
  return (req, res) => {
    res.writeHead = writeHeadWithReason as ServerResponse['writeHead']
    return handler(req, res)
  }
}
