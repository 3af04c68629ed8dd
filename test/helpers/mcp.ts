import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN, childEnv, ROOT } from './cli.js'

export interface McpSession {
  client: Client
  /** What the server wrote to stderr so far. */
  stderr(): string
  /** Calls a tool; the result as the client got it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>
  close(): Promise<void>
}

/**
 * An MCP session as a coding agent has one: the SDK's own client, spawning `command args` over
 * stdio (by default `node bin/sendbox.js mcp …args`, so the bundles run as users get them).
 */
export async function connectMcp(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; command?: string; cwd?: string } = {},
): Promise<McpSession> {
  const command = options.command ?? process.execPath
  const transport = new StdioClientTransport({
    command,
    args: options.command ? args : [BIN, 'mcp', ...args],
    env: childEnv(options.env) as Record<string, string>,
    cwd: options.cwd ?? ROOT,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk) => (stderr += chunk))
  const client = new Client({ name: 'sendbox-test', version: '1.0.0' })
  await client.connect(transport)
  return {
    client,
    stderr: () => stderr,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  }
}

/** The text of a result's first content block. */
export function textOf(result: CallToolResult): string {
  const [first] = result.content
  if (first?.type !== 'text') throw new Error(`no text content: ${JSON.stringify(result)}`)
  return first.text
}
