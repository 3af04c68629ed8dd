import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ConfigError, SAMPLE_TOKEN } from '../config.js'
import type { Sendbox } from '../index.js'
import { PACKAGE_ROOT } from '../package-root.js'
import { version } from '../version.js'
import { storeName } from '../store/postgres/url.js'
import { SCHEMA_VERSION } from '../store/postgres/schema.js'
import { LOG_FORMAT } from '../store/log-format.js'
import { serveFlags, serveOptionsFrom } from './flags.js'
import { startedByNpm, watchParent } from './lifecycle.js'
import { usage } from './usage.js'

const COMMANDS = ['serve', 'init', 'check', 'render', 'mcp'] as const

/** Said in the banner, where it stays on screen (the warning above it scrolls away). */
const MISSING_TEMPLATES =
  '  ← does not exist: 0 templates until it appears (create a starter with `npx sendbox init`, or fix --templates)'
type Command = (typeof COMMANDS)[number]

const mainHelp = () => `sendbox ${version} — a local sandbox of the message-sending API

Usage: sendbox [serve] [flags]      start the API and the inbox (the default)
       sendbox init [flags]         create templates/ and fixtures/ with a starter
       sendbox check [flags]        parse and render every template with its fixtures
       sendbox render <slug> [flags] print a rendered template
       sendbox mcp [--url <url>]    serve a running sandbox to a coding agent (MCP, stdio)
       sendbox <command> --help     flags of a command
       sendbox --version
`

/** Exit codes: 0 ok, 1 could not run (busy port, locked log, check found problems), 2 bad usage. */
export async function main(
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${version}\n`)
    return 0
  }
  const command: Command = COMMANDS.includes(argv[0] as Command)
    ? (argv.shift() as Command)
    : 'serve'
  const wantsHelp = argv.includes('--help') || argv.includes('-h')
  try {
    switch (command) {
      case 'serve':
        if (wantsHelp) {
          process.stdout.write(
            `${mainHelp()}\n${usage('sendbox serve', 'Start the sandbox API and the inbox.', serveFlags)}\n`,
          )
          return 0
        }
        return await serve(argv, env)
      case 'init':
        return await (await import('./init.js')).init(argv, env, wantsHelp)
      case 'check':
        return await (await import('./check.js')).check(argv, env, wantsHelp)
      case 'render':
        return await (await import('./render.js')).render(argv, env, wantsHelp)
      case 'mcp':
        return await (await import('./mcp.js')).mcp(argv, env, wantsHelp)
    }
  } catch (error) {
    return fail(error)
  }
}

/**
 * Ends the process with `code` once standard output and error have handed everything written to
 * them on. `process.exit()` at once drops what a pipe has not taken yet: `sendbox check --json |
 * jq` got the first 65,536 bytes (the pipe's buffer) of 832,820, and invalid JSON. A write's
 * callback runs after the writes before it: an empty write on each stream waits for them. A
 * reader that went away (EPIPE) is an error there, and the process still ends.
 *
 * @example
 * main().then(exitWhenWritten)
 */
export function exitWhenWritten(code: number): void {
  process.exitCode = code
  let pending = 2
  const written = () => {
    if (--pending === 0) process.exit(code)
  }
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => {})
    stream.write('', written)
  }
}

function fail(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`sendbox: ${error.message}\n`)
    return 2
  }
  const code = (error as { code?: unknown }).code
  if ((error as Error)?.name === 'StartError' || typeof code === 'string') {
    process.stderr.write(`sendbox: ${(error as Error).message}\n`)
    return 1
  }
  process.stderr.write(`sendbox: ${(error as Error)?.stack ?? String(error)}\n`)
  return 1
}

/**
 * How to trust the local CA, one line per kind of client (docs/https.md#trust-the-ca); nothing without HTTPS.
 *
 * @example httpsLines('/p/.sendbox/ca.pem', null)[0] // '  CA         /p/.sendbox/ca.pem   (trust it once: one of these)'
 */
export function httpsLines(caFile: string | null, ownCert: string | null): string[] {
  if (ownCert) return [`  HTTPS      your certificate ${ownCert} (--https-cert)`]
  if (!caFile) return []
  // The page's own path, in the package's docs/ (shipped with it): "docs/https.md" alone names
  // a file of the project the user runs sendbox in, which has none.
  const more = fileURLToPath(new URL('docs/https.md', PACKAGE_ROOT))
  return [
    `  CA         ${caFile}   (trust it once: one of these)`,
    `    Node       NODE_EXTRA_CA_CERTS=${caFile}`,
    `    OpenSSL    SSL_CERT_FILE=${caFile}   (Python ssl, Ruby, Go; replaces their CA list)`,
    `    requests   REQUESTS_CA_BUNDLE=${caFile}`,
    `    Browser    import it as a trusted authority (Settings > Certificates > Authorities)`,
    `    More       ${more}`,
  ]
}

async function serve(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { options, positionals, exitWithParent } = serveOptionsFrom(argv, env)
  if (positionals.length)
    throw new ConfigError(positionals[0]!, 'unexpected argument; see sendbox --help.')
  // Before anything is written: a reader gone must not end the server at its first line.
  writeWithoutReaders()
  // Listen for the signals before anything starts, so one that comes early is not fatal.
  const stopped = stopSignal(env, exitWithParent)
  // Loaded here, not at the top: --version, --help, check and render never load the server.
  const { startSendbox } = await import('../index.js')
  // Ready once the port is open; the templates are compiled right after (requests wait for them).
  const sandbox = await startSendbox(options, {
    open: !env.CI,
    logs: true,
    templatesAfterReady: true,
  })
  process.stdout.write(banner(sandbox))
  if (sandbox.config.open) {
    const { default: open } = await import('open')
    open(sandbox.inboxUrl).catch(() => {})
  }
  await stopped
  await sandbox.close()
  return 0
}

/**
 * What `serve` writes (its banner, a line per request) is for whoever reads its output, and a
 * write there that fails must not end the server. With the reader gone (`sendbox | head -1`, a
 * CI step that stopped reading, a parent that died) a write fails with EPIPE, an 'error' event
 * that nothing handled: the server died at its next log line, its sends in flight with it. Now
 * such lines are dropped and sendbox goes on. Any other failure (a full disk under `> file`) is
 * said once on the other stream, if it can take it.
 */
function writeWithoutReaders(): void {
  const streams = [
    { stream: process.stdout, name: 'standard output', other: process.stderr },
    { stream: process.stderr, name: 'standard error', other: process.stdout },
  ]
  for (const { stream, name, other } of streams) {
    let said = false
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (said || error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return
      said = true
      other.write(
        `sendbox: cannot write to ${name} (${error.code ?? error.message}); its lines are dropped.\n`,
      )
    })
  }
}

/** Resolves when `serve` is to stop: SIGINT, SIGTERM, or (when asked, or under npm) no parent. */
function stopSignal(env: NodeJS.ProcessEnv, exitWithParent: boolean | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    process.on('SIGINT', () => resolve())
    process.on('SIGTERM', () => resolve())
    // Outlive no parent: asked for, or under npm, whose `sh -c` dies on SIGTERM without passing it on.
    if (exitWithParent === true || (exitWithParent === undefined && startedByNpm(env))) {
      watchParent(
        (reason) => {
          process.stderr.write(`sendbox: stopping, ${reason}.\n`)
          resolve()
        },
        { stdin: exitWithParent === true },
      )
    }
  })
}

/**
 * Where events are posted: the --webhook URLs (every project's events) and each project's own,
 * by name. Never a secret.
 */
function webhooksLine({ webhooks, projects }: Sendbox['config']): string {
  const own = projects
    ? projects.names.flatMap((name) =>
        projects.webhooksOf(name).map((hook) => `${hook.url} (${name}'s)`),
      )
    : []
  if (!webhooks.length && !own.length) return 'none (add one with --webhook <url>)'
  const every = webhooks.map((url) => (projects ? `${url} (every project's)` : url))
  return [...every, ...own].join(', ')
}

/** What `serve` prints once listening, ending with the ready line. */
function banner(sandbox: Pick<Sendbox, 'config' | 'url' | 'inboxUrl' | 'caFile'>): string {
  const { config } = sandbox
  const token = config.projects
    ? `the projects file's (${config.projects.names.join(', ')}); the inspector and the inbox take one too`
    : config.tokens.length
      ? `one of the ${config.tokens.length} --token values`
      : `${SAMPLE_TOKEN}  (any token starting with ${config.tokenPrefixes.map((p) => `"${p}"`).join(' or ')} works)`
  return [
    '',
    `  sendbox ${version}`,
    '',
    `  API        ${sandbox.url}   (POST /messages, GET /templates/:slug)`,
    `  Inbox      ${sandbox.inboxUrl}`,
    `  Token      ${token}`,
    `  Templates  ${config.templatesDir}${existsSync(config.templatesDir) ? '' : MISSING_TEMPLATES}`,
    config.store
      ? `  Store      PostgreSQL ${storeName(config.store)}, format ${SCHEMA_VERSION}   (every sendbox on it is one sandbox)`
      : `  Log        ${config.dbFile ? `${config.dbFile}, format ${LOG_FORMAT}` : 'in memory (--memory)'}`,
    `  Webhooks   ${webhooksLine(config)}`,
    `  Secret     ${config.webhookSecretGenerated ? `${config.webhookSecret}  (generated for this run; keep one with --webhook-secret)` : 'the one given with --webhook-secret'}`,
    // The relay without its user name and password: the console is no place for them.
    ...(config.relay
      ? [
          `  Relay      ${config.relay.url}, releases to ${config.relayAllow.length ? config.relayAllow.join(', ') : 'no one yet (add --relay-allow)'}`,
        ]
      : []),
    ...(config.deliveryDelay
      ? [`  Delivery   a state change every ${config.deliveryDelay} ms (--delivery-delay)`]
      : []),
    ...httpsLines(sandbox.caFile, config.httpsCert),
    '',
    `sendbox ready ${sandbox.url}`,
    '',
  ].join('\n')
}
