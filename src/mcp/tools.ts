import { toJsonSchema } from '@valibot/to-json-schema'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool as ListedTool,
} from '@modelcontextprotocol/sdk/types.js'
import { CONVERSION, tidy } from '../http/json-schema.js'
import { parse } from '../lib/schema.js'
import type { InspectorAnswer, InspectorRequest } from './inspector.js'
import { TOOLS, type Tool } from './tool-list.js'

/**
 * Serves the tools (tool-list.ts) with the SDK's lower-level server: the list with each tool's
 * arguments and result as JSON Schema, and a call checked with the tool's Valibot schema. Results
 * go back as structured content and, for clients that read only text, as the same JSON in a
 * text block; bad arguments, an inspector error or an unreachable sandbox are a tool error
 * whose text starts with what went wrong (the SDK's own words for bad arguments and an unknown
 * tool, so an agent reads what the SDK's high-level server said).
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

/** A tool error in the words of the SDK's McpError (`MCP error -32602: …`). */
const refused = (text: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: `MCP error ${ErrorCode.InvalidParams}: ${text}` }],
})

/** A tool as tools/list shows it. */
function listed({ name, title, description, annotations, input, output }: Tool): ListedTool {
  return {
    name,
    title,
    description,
    inputSchema: input.json as ListedTool['inputSchema'],
    outputSchema: tidy(toJsonSchema(output, CONVERSION)) as ListedTool['outputSchema'],
    annotations,
  }
}

/**
 * One call: the arguments (with the tool's own defaults) checked, then the tool's requests.
 * Bad ones answer as the SDK words them, each problem with its argument's name.
 */
async function call(
  tool: Tool,
  given: Record<string, unknown> | undefined,
  ask: (request: Omit<InspectorRequest, 'signal'>) => Promise<InspectorAnswer>,
): Promise<CallToolResult> {
  const args = { ...tool.defaults, ...given }
  const checked = parse(tool.input.schema, args)
  if (!checked.ok) {
    const problems = checked.problems.map(({ code, message, field }) => ({ code, message, field }))
    return refused(
      `Input validation error: Invalid arguments for tool ${tool.name}: ${JSON.stringify(problems)}`,
    )
  }
  return toolResult(await tool.run(args as never, ask))
}

/**
 * Serves every tool on `server`; `ask` sends one request to the sandbox's inspector.
 *
 * @example serveTools(server, (request) => inspect({ url: 'http://127.0.0.1:5025' }, request))
 */
export function serveTools(
  server: Server,
  ask: (request: InspectorRequest) => Promise<InspectorAnswer>,
): void {
  const list = TOOLS.map(listed)
  const byName = new Map(TOOLS.map((tool) => [tool.name, tool]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name)
    if (!tool) return refused(`Tool ${request.params.name} not found`)
    // Each call's own signal: an MCP client that cancels the call stops its request (and a wait).
    return call(tool, request.params.arguments, (one) => ask({ ...one, signal: extra.signal }))
  })
}
