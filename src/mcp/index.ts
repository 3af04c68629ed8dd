import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { version } from '../version.js'
import { inspect, type SandboxTarget } from './inspector.js'

export { type SandboxTarget, sandboxUrl } from './inspector.js'
import { serveTools } from './tools.js'

/**
 * `sendbox mcp`: a Model Context Protocol server for coding agents (docs/mcp.md#tools), a client of
 * the inspector API of the sandbox at `url` like the inbox page, and nothing of the server: a
 * sandbox that is down makes each tool call an error that says how to start one, and the MCP
 * server stays up to answer the next call once it is.
 */

const instructions = (url: string) =>
  `sendbox is a local sandbox of an email-sending API (at ${url}); these tools read what the application under development sent through it. A typical check of an email flow: clear_messages, make the application send (sign up, reset a password), wait_for_message with the recipient's address, then follow one of the record's links[].href or type one of its codes. render_template and check_template preview a template without sending.`

/**
 * The MCP server with every tool, attached to the sandbox at `sandbox.url` (not yet connected).
 *
 * @example
 * const server = createMcpServer({ url: 'http://127.0.0.1:5025' })
 * await server.connect(new StdioServerTransport())
 */
export function createMcpServer(sandbox: SandboxTarget): Server {
  const server = new Server(
    { name: 'sendbox', version },
    { capabilities: { tools: {} }, instructions: instructions(sandbox.url) },
  )
  serveTools(server, (request) => inspect(sandbox, request))
  return server
}

/**
 * Serves MCP over this process's stdin and stdout until the client closes stdin (the agent
 * quit). Resolves then; calls still waiting on the sandbox are aborted.
 *
 * @example await runMcpServer({ url: 'http://127.0.0.1:5025' })
 */
export async function runMcpServer(sandbox: SandboxTarget): Promise<void> {
  const server = createMcpServer(sandbox)
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve
  })
  await server.connect(new StdioServerTransport())
  // The stdio transport watches neither the end of its input nor a broken output; without this,
  // a wait in flight would keep the process alive after the agent is gone, and a write to a
  // closed pipe would crash it (EPIPE).
  const stop = () => void server.close()
  process.stdin.once('end', stop)
  process.stdout.on('error', stop)
  await closed
}
