import { ConfigError } from '../config.js'
import { type FlagSpec, parseFlags } from './flags.js'
import { usage } from './usage.js'

/**
 * `sendbox mcp`: a Model Context Protocol server on stdin/stdout for coding agents, attached to
 * a sandbox that runs elsewhere (`npx sendbox`). Stdout carries only the protocol; the one line
 * of ours goes to stderr, which MCP clients show in their logs.
 */

export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:5025'

const mcpFlags = {
  url: {
    type: 'string',
    env: 'SENDBOX_URL',
    default: DEFAULT_SANDBOX_URL,
    valueHint: 'url',
    description: 'The sandbox whose inspector API the tools call',
  },
  'inspector-password': {
    type: 'string',
    env: 'SENDBOX_INSPECTOR_PASSWORD',
    valueHint: 'password',
    description: 'The password of a sandbox started with --inspector-password; prefer the variable',
  },
} as const satisfies Record<string, FlagSpec>

/**
 * Runs `sendbox mcp` until the agent closes stdin. Exit codes as for every command: 0 done,
 * 2 bad usage (an unknown flag, a --url that is not an http(s) URL).
 *
 * @example await mcp(['--url', 'http://127.0.0.1:5025'], process.env, false)
 */
export async function mcp(argv: string[], env: NodeJS.ProcessEnv, help: boolean): Promise<number> {
  if (help) {
    process.stdout.write(
      `${usage('sendbox mcp', 'Serve the sandbox to a coding agent over MCP (stdio): list_messages, get_message, wait_for_message, list_templates, get_template, render_template, check_template, simulate_event, clear_messages.', mcpFlags)}\n`,
    )
    return 0
  }
  const { values, positionals } = parseFlags(argv, mcpFlags)
  if (positionals.length)
    throw new ConfigError(positionals[0]!, 'unexpected argument; see sendbox mcp --help.')
  const raw = (values.url as string | undefined) ?? (env.SENDBOX_URL || DEFAULT_SANDBOX_URL)
  // Loaded here: the SDK and its schemas cost nothing to the commands that do not use them.
  const { runMcpServer, sandboxUrl } = await import('../mcp/index.js')
  let url: string
  try {
    url = sandboxUrl(raw)
  } catch (error) {
    throw new ConfigError(
      values.url === undefined ? 'SENDBOX_URL' : '--url',
      (error as Error).message,
    )
  }
  process.stderr.write(`sendbox mcp: serving MCP on stdio for the sandbox at ${url}\n`)
  const password =
    (values['inspector-password'] as string | undefined) ?? env.SENDBOX_INSPECTOR_PASSWORD
  // A sandbox with projects takes a token on the inspector: the one in SENDBOX_TOKEN.
  const token = env.SENDBOX_TOKEN || undefined
  await runMcpServer({ url, ...(password ? { password } : {}), ...(token ? { token } : {}) })
  return 0
}
