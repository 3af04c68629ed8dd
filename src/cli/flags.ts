import { parseArgs } from 'node:util'
import { nearest } from '../lib/suggest.js'
import { ConfigError, DEFAULTS, type SendboxOptions } from '../config.js'

/**
 * Every `serve` flag, once: its environment variable, default and help line. The parser, the
 * environment reader and `--help` are all derived from this table.
 */
export interface FlagSpec {
  type: 'string' | 'boolean'
  env: string
  description: string
  /** Shown in --help. */
  default?: string
  multiple?: boolean
  valueHint?: string
  /** A one-letter alias (`-u`). */
  short?: string
}

export const serveFlags = {
  port: {
    type: 'string',
    env: 'SENDBOX_PORT',
    default: String(DEFAULTS.port),
    valueHint: 'n',
    description: 'Port to listen on; 0 picks a free one',
  },
  host: {
    type: 'string',
    env: 'SENDBOX_HOST',
    default: DEFAULTS.host,
    valueHint: 'addr',
    description: 'Interface to bind',
  },
  templates: {
    type: 'string',
    env: 'SENDBOX_TEMPLATES',
    default: DEFAULTS.templates,
    valueHint: 'dir',
    description: 'Templates folder (<slug>.liquid / <slug>.html)',
  },
  fixtures: {
    type: 'string',
    env: 'SENDBOX_FIXTURES',
    default: DEFAULTS.fixtures,
    valueHint: 'dir',
    description: 'Sample variables: <slug>.json or <slug>/<case>.json',
  },
  snapshots: {
    type: 'string',
    env: 'SENDBOX_SNAPSHOTS',
    default: DEFAULTS.snapshots,
    valueHint: 'dir',
    description:
      'Snapshots of every render, to commit: <slug>/<case>.html and .txt (sendbox check compares)',
  },
  'snapshot-now': {
    type: 'string',
    env: 'SENDBOX_SNAPSHOT_NOW',
    default: DEFAULTS.snapshotNow,
    valueHint: 'time',
    description: 'What "now" is in snapshot renders (RFC 3339; they also run in UTC, en-US)',
  },
  db: {
    type: 'string',
    env: 'SENDBOX_DB',
    default: DEFAULTS.db,
    valueHint: 'file',
    description: 'Message log (JSON Lines)',
  },
  memory: {
    type: 'boolean',
    env: 'SENDBOX_MEMORY',
    default: 'false',
    description: 'Keep messages in memory only (no log file)',
  },
  store: {
    type: 'string',
    env: 'SENDBOX_STORE',
    valueHint: 'url',
    description:
      'A PostgreSQL database (postgres://user:password@host:port/db) instead of the log: every sendbox on it is one sandbox',
  },
  'max-messages': {
    type: 'string',
    env: 'SENDBOX_MAX_MESSAGES',
    default: String(DEFAULTS.maxMessages),
    valueHint: 'n',
    description: 'Keep at most this many messages; the oldest are dropped',
  },
  token: {
    type: 'string',
    env: 'SENDBOX_TOKEN',
    multiple: true,
    valueHint: 'token',
    description: 'Accept exactly this token (repeatable; then only these are accepted)',
  },
  'token-prefix': {
    type: 'string',
    env: 'SENDBOX_TOKEN_PREFIX',
    multiple: true,
    valueHint: 'prefix',
    description: `Also accept tokens starting with this (repeatable; "${DEFAULTS.tokenPrefix}" always is)`,
  },
  lenient: {
    type: 'boolean',
    env: 'SENDBOX_LENIENT',
    default: 'false',
    description: 'Allow unknown fields; render missing variables empty, as warnings',
  },
  'max-body': {
    type: 'string',
    env: 'SENDBOX_MAX_BODY',
    default: '1mb',
    valueHint: 'size',
    description: 'Largest request body (bytes, or 512kb, 2mb)',
  },
  'max-log-bytes': {
    type: 'string',
    env: 'SENDBOX_MAX_LOG_BYTES',
    default: '256mb',
    valueHint: 'size',
    description: 'Keep at most this many bytes of messages in memory; the oldest are dropped',
  },
  'allowed-host': {
    type: 'string',
    env: 'SENDBOX_ALLOWED_HOSTS',
    multiple: true,
    valueHint: 'name',
    description:
      'Also answer requests addressed to this host name (repeatable; .name for subdomains; all turns the check off)',
  },
  cors: {
    type: 'string',
    env: 'SENDBOX_CORS',
    multiple: true,
    valueHint: 'origin',
    description:
      'Let a browser app on this origin call the emulated API (repeatable; never the inspector)',
  },
  'inspector-password': {
    type: 'string',
    env: 'SENDBOX_INSPECTOR_PASSWORD',
    valueHint: 'password',
    description:
      'Require this password (HTTP Basic, any user name) for /_sandbox/; prefer the variable',
  },
  projects: {
    type: 'string',
    env: 'SENDBOX_PROJECTS',
    valueHint: 'file',
    description:
      'Projects with their own tokens, webhooks and mail (YAML or JSON; docs/team.md#projects-each-teams-mail-behind-its-own-tokens): only its tokens are accepted, and the inspector takes one too',
  },
  https: {
    type: 'boolean',
    env: 'SENDBOX_HTTPS',
    default: 'false',
    description: 'Serve HTTPS with a local CA kept beside the log (prints how to trust it)',
  },
  'https-cert': {
    type: 'string',
    env: 'SENDBOX_HTTPS_CERT',
    valueHint: 'file',
    description: 'Serve HTTPS with your own certificate (PEM; implies --https, needs --https-key)',
  },
  'https-key': {
    type: 'string',
    env: 'SENDBOX_HTTPS_KEY',
    valueHint: 'file',
    description: 'The private key (PEM) of --https-cert',
  },
  open: {
    type: 'boolean',
    env: 'SENDBOX_OPEN',
    default: 'true, unless CI is set',
    description: 'Open the inbox in a browser (--no-open to skip)',
  },
  'exit-with-parent': {
    type: 'boolean',
    env: 'SENDBOX_EXIT_WITH_PARENT',
    default: 'off; under npm/npx the parent check is on',
    description: 'Stop when the process that started sendbox is gone, or stdin (a pipe) is closed',
  },
  webhook: {
    type: 'string',
    env: 'SENDBOX_WEBHOOK',
    multiple: true,
    valueHint: 'url',
    description:
      'Post every delivery event to this URL, signed (repeatable; the variable takes a comma-separated list)',
  },
  'webhook-secret': {
    type: 'string',
    env: 'SENDBOX_WEBHOOK_SECRET',
    default: 'generated and printed at start',
    valueHint: 'whsec_…',
    description: 'Standard Webhooks signing secret, whsec_<base64>',
  },
  'webhook-retries': {
    type: 'string',
    env: 'SENDBOX_WEBHOOK_RETRIES',
    default: String(DEFAULTS.webhookRetries),
    valueHint: 'n',
    description: 'Retries of a webhook without a 2xx (exponential backoff from 1 s)',
  },
  'delivery-delay': {
    type: 'string',
    env: 'SENDBOX_DELIVERY_DELAY',
    default: String(DEFAULTS.deliveryDelay),
    valueHint: 'ms',
    description: "Milliseconds between a message's delivery state changes (the first one too)",
  },
  relay: {
    type: 'string',
    env: 'SENDBOX_RELAY',
    valueHint: 'url',
    description:
      'SMTP server a message may be released to (smtp://user:password@host:port, STARTTLS when offered; smtps://…); never automatic; prefer the variable',
  },
  'relay-allow': {
    type: 'string',
    env: 'SENDBOX_RELAY_ALLOW',
    multiple: true,
    valueHint: 'pattern',
    description:
      'A recipient a release may go to: an address or *@domain (repeatable; no release without one)',
  },
  spamassassin: {
    type: 'string',
    env: 'SENDBOX_SPAMASSASSIN',
    valueHint: 'host:port',
    description:
      "A SpamAssassin spamd that scores a message for spam when asked (the inbox's Checks tab, GET …/messages/:id/spam)",
  },
} as const satisfies Record<string, FlagSpec>

export type ServeFlag = keyof typeof serveFlags

/** `sendbox check`'s own flags that a CI job may set by variable rather than on the command line. */
export const checkOnlyFlags = {
  'fail-on-accessibility': {
    type: 'boolean',
    env: 'SENDBOX_FAIL_ON_ACCESSIBILITY',
    default: 'false',
    description:
      'Count accessibility findings (alt text, link names, contrast, …) as errors: exit 1 on any',
  },
} as const satisfies Record<string, FlagSpec>

const TRUE: ReadonlySet<string> = new Set(['1', 'true', 'yes', 'on'])
const FALSE: ReadonlySet<string> = new Set(['0', 'false', 'no', 'off', ''])

function envBoolean(name: string, value: string, flag: string): boolean {
  const v = value.trim().toLowerCase()
  if (TRUE.has(v)) return true
  if (FALSE.has(v)) return false
  throw new ConfigError(flag, `${name} must be true or false, got ${JSON.stringify(value)}`)
}

/**
 * A boolean flag's value: `--x` or `--no-x`, else its variable, else undefined.
 *
 * @example
 * booleanFlag({}, { SENDBOX_FAIL_ON_ACCESSIBILITY: 'true' }, 'fail-on-accessibility', checkOnlyFlags) // true
 */
export function booleanFlag(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  flag: string,
  specs: Record<string, FlagSpec>,
): boolean | undefined {
  if (values[`no-${flag}`]) return false
  if (values[flag] !== undefined) return values[flag] === true
  const name = specs[flag]!.env
  const raw = name ? env[name] : undefined
  return raw === undefined ? undefined : envBoolean(name, raw, `--${flag}`)
}

function suggestFlag(unknown: string, known: string[]): string {
  const name = unknown.replace(/^-+/, '').split('=')[0]!
  const [near] = nearest(name, known, 1)
  return near ? ` Did you mean --${near}?` : ''
}

/** Parses argv strictly (an unknown flag is an error, with a did-you-mean). */
export function parseFlags<T extends Record<string, FlagSpec>>(
  argv: string[],
  specs: T,
  extra: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {},
) {
  const options: Record<
    string,
    { type: 'string' | 'boolean'; multiple?: boolean; short?: string }
  > = { ...extra }
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.type,
      ...(spec.multiple ? { multiple: true } : {}),
      ...(spec.short ? { short: spec.short } : {}),
    }
    if (spec.type === 'boolean') options[`no-${name}`] = { type: 'boolean' }
  }
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true })
  } catch (error) {
    const message = (error as Error).message
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1]
    if (unknown)
      throw new ConfigError(
        unknown,
        `unknown option.${suggestFlag(unknown, Object.keys(options))} See --help.`,
      )
    const missing = /Option '(?:-\w, )?(--[\w-]+)/.exec(message)?.[1]
    throw new ConfigError(missing ?? 'arguments', message.replace(/^Option '[^']+' /, ''))
  }
}

/**
 * argv + environment → options for `startSendbox`. A flag wins over its variable. Values stay
 * strings here; `resolveConfig` validates them and names the flag when one is wrong.
 */
export function serveOptionsFrom(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { options: SendboxOptions; positionals: string[]; exitWithParent: boolean | undefined } {
  const { values, positionals } = parseFlags(argv, serveFlags)
  const pick = (flag: ServeFlag): string | string[] | boolean | undefined => {
    const spec: FlagSpec = serveFlags[flag]
    if (spec.type === 'boolean') return booleanFlag(values, env, flag, serveFlags)
    if (values[flag] !== undefined) return values[flag] as string | string[]
    const raw = env[spec.env]
    if (raw === undefined) return undefined
    return spec.multiple ? raw.split(',') : raw
  }
  const num = (flag: ServeFlag) => {
    const v = pick(flag) as string | undefined
    if (v === undefined) return undefined
    const n = v.trim() === '' ? NaN : Number(v)
    if (!Number.isFinite(n))
      throw new ConfigError(`--${flag}`, `expected a number, got ${JSON.stringify(v)}`)
    return n
  }
  const options: SendboxOptions = {
    port: num('port'),
    host: pick('host') as string | undefined,
    templates: pick('templates') as string | undefined,
    fixtures: pick('fixtures') as string | undefined,
    snapshots: pick('snapshots') as string | undefined,
    snapshotNow: pick('snapshot-now') as string | undefined,
    db: pick('db') as string | undefined,
    memory: pick('memory') as boolean | undefined,
    store: pick('store') as string | undefined,
    maxMessages: num('max-messages'),
    token: pick('token') as string[] | undefined,
    tokenPrefix: pick('token-prefix') as string[] | undefined,
    lenient: pick('lenient') as boolean | undefined,
    maxBody: pick('max-body') as string | undefined,
    maxLogBytes: pick('max-log-bytes') as string | undefined,
    allowedHosts: pick('allowed-host') as string[] | undefined,
    cors: pick('cors') as string[] | undefined,
    inspectorPassword: pick('inspector-password') as string | undefined,
    projects: pick('projects') as string | undefined,
    https: pick('https') as boolean | undefined,
    httpsCert: pick('https-cert') as string | undefined,
    httpsKey: pick('https-key') as string | undefined,
    open: pick('open') as boolean | undefined,
    webhook: pick('webhook') as string[] | undefined,
    webhookSecret: pick('webhook-secret') as string | undefined,
    webhookRetries: num('webhook-retries'),
    deliveryDelay: num('delivery-delay'),
    relay: pick('relay') as string | undefined,
    relayAllow: pick('relay-allow') as string[] | undefined,
    spamassassin: pick('spamassassin') as string | undefined,
  }
  for (const key of Object.keys(options) as Array<keyof SendboxOptions>)
    if (options[key] === undefined) delete options[key]
  // The process's own lifetime, not the sandbox's: a CLI setting, not a startSendbox option.
  return { options, positionals, exitWithParent: pick('exit-with-parent') as boolean | undefined }
}
