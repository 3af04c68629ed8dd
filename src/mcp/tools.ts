import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { InspectorAnswer, InspectorRequest } from './inspector.js'
import { TOOLS } from './tool-list.js'

/**
 * Registers the tools (tool-list.ts). Results go back as structured content and, for clients
 * that read only text, as the same JSON in a text block; an inspector error (or an unreachable
 * sandbox) is a tool error whose text starts with its code.
 */

/** An answer → a tool result: the body as structured content and as JSON text, or an error. */
export function toolResult(answer: InspectorAnswer): CallToolResult {
  if (!answer.ok) {
    const { code, message, details } = answer.error
    const more = details.length ? `\nDetails: ${JSON.stringify(details)}` : ''
    return { isError: true, content: [{ type: 'text', text: `${code}: ${message}${more}` }] }
  }
  const body = answer.body as Record<string, unknown>
  return {
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: body,
  }
}

/**
 * Registers every tool on `server`; `ask` sends one request to the sandbox's inspector.
 *
 * @example registerTools(server, (request) => inspect({ url: 'http://127.0.0.1:5025' }, request))
 */
export function registerTools(
  server: McpServer,
  ask: (request: InspectorRequest) => Promise<InspectorAnswer>,
): void {
  for (const { name, input, output, run, ...shown } of TOOLS)
    server.registerTool(
      name,
      { ...shown, inputSchema: input, outputSchema: output },
      // Each call's own signal: an MCP client that cancels the call stops its request (and a wait).
      async (args: unknown, extra: { signal: AbortSignal }) =>
        toolResult(
          await run(args as never, (request) => ask({ ...request, signal: extra.signal })),
        ),
    )
}
