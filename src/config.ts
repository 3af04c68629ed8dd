import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import bytes from 'bytes'
import { isTimeText, TIME_HINT } from './lib/time.js'
import {
  createProjects,
  parseProjects,
  ProjectsFileError,
  type Projects,
  type ProjectsDefinition,
} from './core/projects.js'
import type { RelayConfig, SendboxConfig } from './core/settings.js'

export type { RelayConfig, SendboxConfig }

/**
 * Options of `startSendbox` — they mirror the command-line flags, camelCased. The CLI turns
 * flags and `SENDBOX_*` variables into these; `resolveConfig` validates them into one
 * `SendboxConfig` that the rest of sendbox reads.
 */
export interface SendboxOptions {
  /** Port to listen on; `0` picks a free one. Default 5025. */
  port?: number
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string
  /** Templates folder. Default `./templates`. */
  templates?: string
  /** Fixtures folder (sample variables for previews and `check`). Default `./fixtures`. */
  fixtures?: string
  /**
   * Snapshot folder: a render of every template and case, to commit and review. Default
   * `snapshots` beside the templates folder (`./snapshots` with the default `./templates`).
   */
  snapshots?: string
  /** The instant `"now"` stands for in snapshot renders (RFC 3339). Default 2026-01-01T12:00:00Z. */
  snapshotNow?: string
  /** Log file. Default `.sendbox/messages.jsonl`. */
  db?: string
  /** Keep messages in memory only (no file, no lock). Default false. */
  memory?: boolean
  /**
   * A PostgreSQL database instead of the log file: `postgres://user:password@host:port/db`
   * (`sslmode` honoured). Every sendbox on the same database is one sandbox (docs/team.md).
   * Not with `db` or `memory`.
   */
  store?: string
  /** Oldest messages are dropped past this many. Default 5000. */
  maxMessages?: number
  /** Exact tokens to accept; when any is given, only these are accepted. */
  token?: string | string[]
  /** Extra accepted token prefixes, beside `sandbox_`. */
  tokenPrefix?: string | string[]
  /** Accept unknown fields; render missing variables empty, as warnings. Default false. */
  lenient?: boolean
  /** Largest accepted request body: bytes, or a size like `512kb`, `2mb`. Default 1 MiB. */
  maxBody?: number | string
  /**
   * Oldest messages are dropped once the log holds more than this many bytes of records (their
   * JSON size), like `maxMessages`. Bytes, or a size like `512mb`. Default 256 MiB.
   */
  maxLogBytes?: number | string
  /**
   * Host names (besides localhost, `*.localhost` and IP addresses) the server answers to: a
   * name, or `.example.test` for that name and its subdomains. `'all'` (or `true`) turns the
   * Host check off. Protects against DNS rebinding.
   */
  allowedHosts?: string | string[] | true
  /** Origins (`http://localhost:3000`) allowed to call the emulated API from a browser (CORS). The inspector never is. */
  cors?: string | string[]
  /** Puts HTTP Basic authentication (any user name, this password) on `/_sandbox/`. */
  inspectorPassword?: string
  /**
   * Projects, each with its own tokens and webhooks, and admin tokens (docs/team.md#projects-each-teams-mail-behind-its-own-tokens):
   * a projects file (YAML or JSON), or the same object. With it, only the listed tokens are
   * accepted, and the inspector takes a token too.
   */
  projects?: string | ProjectsDefinition
  /** Open the inbox in a browser once listening. CLI default: yes unless `CI`; API default: no. */
  open?: boolean
  /** Print the start banner and request problems. CLI default: yes; API default: no. */
  logs?: boolean
  /** Working folder the relative paths resolve against. Default `process.cwd()`. */
  cwd?: string
  /** URLs every delivery event is posted to, signed (Standard Webhooks). */
  webhook?: string | string[]
  /** `whsec_<base64>`; generated when missing (see `sandbox.webhookSecret`). */
  webhookSecret?: string
  /** Retries of a webhook delivery that got no 2xx, with exponential backoff from 1 s. Default 5. */
  webhookRetries?: number
  /** Milliseconds between a message's delivery transitions (the first one too). Default 0. */
  deliveryDelay?: number
  /**
   * @internal Milliseconds before a webhook's first retry (then doubling). Default 1000; sendbox's
   * own tests shorten it so that they never wait seconds.
   */
  webhookBackoff?: number
  /** @internal Milliseconds a webhook attempt may take. Default 5000. */
  webhookTimeout?: number
  /**
   * Serve HTTPS, with a certificate signed by a local CA kept beside the log (see `sandbox.ca`).
   * Default false; `httpsCert` and `httpsKey` imply it.
   */
  https?: boolean
  /** Your own certificate (PEM file, the chain after it) instead of the local CA's. */
  httpsCert?: string
  /** The private key (PEM file) of `httpsCert`. */
  httpsKey?: string
  /** @internal Days a new server certificate is valid. Default 397; tests make it near its end. */
  httpsCertDays?: number
  /**
   * An SMTP server a stored message may be released to (sent on to a real mailbox, never
   * automatically): `smtp://user:password@host:port` (STARTTLS when the server offers it) or
   * `smtps://…` (TLS from the start). `?tls=insecure` accepts a certificate no CA vouches for (a
   * local test server's); otherwise it must verify (`NODE_EXTRA_CA_CERTS` adds a CA). The password
   * is never printed, logged or answered.
   */
  relay?: string
  /** The recipients a release may go to: addresses, or `*@domain`. No release without them. */
  relayAllow?: string | string[]
  /** @internal Milliseconds a release may take in all (connection, greeting, each reply). Default 15000. */
  relayTimeout?: number
  /**
   * A SpamAssassin `spamd` (`host:port`; the port defaults to spamd's 783) that scores a stored
   * message for spam when asked (`GET /_sandbox/api/messages/:id/spam`, the inbox's Checks tab).
   * Sends never wait for it.
   */
  spamassassin?: string
  /** @internal Milliseconds a score may take in all (connection and answer). Default 10000. */
  spamassassinTimeout?: number
}

export const DEFAULTS = {
  port: 5025,
  host: '127.0.0.1',
  templates: './templates',
  fixtures: './fixtures',
  // Beside the templates folder, whatever folder sendbox starts in: see `snapshotsFolder`.
  snapshots: 'snapshots beside the templates folder',
  // Noon UTC: no time zone a template names moves it to another day.
  snapshotNow: '2026-01-01T12:00:00Z',
  db: '.sendbox/messages.jsonl',
  maxMessages: 5000,
  tokenPrefix: 'sandbox_',
  maxBody: 1024 * 1024,
  // 5000 messages of up to ~50 KB each (the example receipt is ~6 KB): ordinary emails never reach it.
  maxLogBytes: 256 * 1024 * 1024,
  webhookRetries: 5,
  deliveryDelay: 0,
  webhookBackoffMs: 1000,
  webhookTimeoutMs: 5000,
  // Under the 398 days browsers allow (see SERVER_DAYS in src/server/local-ca.ts).
  httpsCertDays: 397,
  // A relay that has not answered in 15 s is not going to: the request gets its 502.
  relayTimeoutMs: 15_000,
  // spamd checks a message in well under a second; one silent for 10 s is not going to answer.
  spamassassinTimeoutMs: 10_000,
} as const

/** Standard Webhooks secrets: `whsec_` then the key in base64. */
const WEBHOOK_SECRET =
  /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4}))$/

/**
 * A fresh signing secret: 24 random bytes, as Standard Webhooks suggests.
 *
 * @example
 * generateWebhookSecret() // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
 */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`

function webhookUrls(value: string | string[] | undefined): string[] {
  const urls = list(value)
  for (const url of urls) {
    let parsed: URL | null = null
    try {
      parsed = new URL(url)
    } catch {
      // reported below
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new ConfigError(
        '--webhook',
        `expected an http:// or https:// URL, got ${JSON.stringify(url)}`,
      )
    }
  }
  return [...new Set(urls)]
}

function webhookSecret(value: string | undefined): string | null {
  if (value === undefined) return null
  const secret = value.trim()
  if (!WEBHOOK_SECRET.test(secret)) {
    throw new ConfigError(
      '--webhook-secret',
      `expected whsec_ followed by the key in base64 (Standard Webhooks), e.g. ${generateWebhookSecret()}; got ${JSON.stringify(value)}`,
    )
  }
  return secret
}

/** The token the start banner and `sandbox.token` offer when no --token is given. */
export const SAMPLE_TOKEN = 'sandbox_local_dev_token'

/** A bad option value. `flag` is the command-line spelling, so the CLI can name it. */
/**
 * The projects of `--projects`: a file read and checked now (a problem stops the start, exit 1,
 * naming the file, line and column), or the object given to `startSendbox`.
 */
function projectsOf(options: SendboxOptions, cwd: string): Projects | null {
  const given = options.projects
  if (given === undefined) return null
  for (const [option, flag] of [
    ['token', '--token'],
    ['tokenPrefix', '--token-prefix'],
    ['inspectorPassword', '--inspector-password'],
  ] as const) {
    if (options[option] !== undefined && list(options[option]).length)
      throw new ConfigError(
        flag,
        "does not go with --projects: the projects file's tokens are the only ones accepted, on the API and the inspector",
      )
  }
  if (typeof given !== 'string') return createProjects(given, 'the projects option')
  const file = resolve(cwd, given)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new ProjectsFileError(
      `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown'})`,
    )
  }
  return createProjects(parseProjects(text, file), file)
}

export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(`${flag}: ${message}`)
  }
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).map((v) => v.trim()).filter(Boolean)
}

function integer(flag: string, value: unknown, min: number, max: number, what: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(flag, `expected ${what}, got ${JSON.stringify(value)}`)
  }
  return n
}

/** `1048576`, `512kb`, `2mb`, `1MiB` → bytes. */
export function parseSize(value: number | string): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null
  const normalized = value.trim().replace(/([kmgt])i?b$/i, '$1b')
  if (!/^\d+(\.\d+)?\s*([kmgt]?b)?$/i.test(normalized)) return null
  const n = bytes.parse(normalized)
  return n === null || !Number.isFinite(n) ? null : Math.floor(n)
}

/**
 * A folder option. A folder that does not exist (yet) is fine: the catalog starts empty, the
 * server warns, and the watcher picks the folder up when it appears. A file is an error.
 */
function folder(flag: string, value: string | undefined, fallback: string, cwd: string): string {
  const dir = resolve(cwd, value ?? fallback)
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new ConfigError(flag, `${dir} is not a folder`)
  return dir
}

/** `--snapshot-now`: an instant, as RFC 3339. */
function snapshotNow(value: string | undefined): string {
  if (value === undefined) return DEFAULTS.snapshotNow
  if (typeof value !== 'string' || !isTimeText(value.trim()))
    throw new ConfigError('--snapshot-now', `expected ${TIME_HINT}, got ${JSON.stringify(value)}`)
  return value.trim()
}

/** `localhost:3000` is not an origin; `http://localhost:3000/` is, once normalised. */
function corsOrigin(value: string): string {
  let url: URL | null = null
  try {
    url = new URL(value)
  } catch {
    // reported below
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search ||
    url.hash
  ) {
    throw new ConfigError(
      '--cors',
      `expected an origin such as http://localhost:3000 (scheme, host and port; no path, no "*"), got ${JSON.stringify(value)}`,
    )
  }
  return url.origin
}

/** A host name for --allowed-host: letters, digits, `-`, `.`, `_` (a leading `.` covers subdomains). */
const HOST_NAME = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/

function allowedHosts(value: SendboxOptions['allowedHosts']): {
  allowedHosts: string[]
  anyHost: boolean
} {
  if (value === true) return { allowedHosts: [], anyHost: true }
  const names = list(value).map((v) => v.toLowerCase())
  if (names.includes('all')) return { allowedHosts: [], anyHost: true }
  for (const name of names) {
    if (!HOST_NAME.test(name) || name.includes(':'))
      throw new ConfigError(
        '--allowed-host',
        `expected a host name such as myname.local (or .example.test for it and its subdomains, or all), got ${JSON.stringify(name)}`,
      )
  }
  return { allowedHosts: names.map((n) => n.replace(/\.$/, '')), anyHost: false }
}

/** `--https`, `--https-cert`, `--https-key`: the two files come together, and imply `--https`. */
function httpsOptions(options: SendboxOptions, cwd: string) {
  const file = (flag: string, value: string | undefined) => {
    if (value === undefined) return null
    if (typeof value !== 'string' || value.trim() === '')
      throw new ConfigError(flag, 'expected the path of a PEM file')
    return resolve(cwd, value)
  }
  const httpsCert = file('--https-cert', options.httpsCert)
  const httpsKey = file('--https-key', options.httpsKey)
  if ((httpsCert === null) !== (httpsKey === null)) {
    const [given, missing] = httpsCert
      ? ['--https-cert', '--https-key']
      : ['--https-key', '--https-cert']
    throw new ConfigError(missing, `needed with ${given}: give both your certificate and its key`)
  }
  return {
    https: options.https === true || httpsCert !== null,
    httpsCert,
    httpsKey,
    httpsCertDays: integer(
      'httpsCertDays',
      options.httpsCertDays ?? DEFAULTS.httpsCertDays,
      1,
      825,
      'days from 1 to 825',
    ),
  }
}

const RELAY_FORM = 'expected smtp://user:password@host:port or smtps://user:password@host:port'

/**
 * `--relay`. Its messages never quote the value: it holds a password.
 *
 * @example relayConfig('smtp://me:secret@localhost:1025')?.url // 'smtp://localhost:1025'
 */
export function relayConfig(value: string | undefined): RelayConfig | null {
  if (value === undefined || value.trim() === '') return null
  let url: URL | null = null
  try {
    url = new URL(value.trim())
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')
    throw new ConfigError(
      '--relay',
      `${RELAY_FORM} (the value is not shown: it may hold a password)`,
    )
  if ((url.pathname !== '' && url.pathname !== '/') || url.hash)
    throw new ConfigError('--relay', `${RELAY_FORM}, with no path`)
  const params = [...url.searchParams]
  const insecureTls = url.searchParams.get('tls') === 'insecure'
  if (params.length > (insecureTls ? 1 : 0))
    throw new ConfigError('--relay', `the only setting a relay URL takes is ?tls=insecure`)
  const secure = url.protocol === 'smtps:'
  // Submission (587, STARTTLS) and submissions (465, TLS): what mail providers listen on.
  const port = url.port ? Number(url.port) : secure ? 465 : 587
  const user = url.username ? decodeURIComponent(url.username) : null
  const password = url.password ? decodeURIComponent(url.password) : null
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return {
    url: `${url.protocol}//${url.hostname}:${port}`,
    host,
    port,
    secure,
    insecureTls,
    user,
    password: () => password,
  }
}

const SPAMD_ADDRESS = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::(\d{1,5}))?$/i

/**
 * `--spamassassin HOST:PORT`: spamd's host (an IPv6 one in brackets) and port (783, spamd's own,
 * when none is given).
 *
 * @example
 * spamdAddress('localhost:11783') // { host: 'localhost', port: 11783 }
 * spamdAddress('[::1]') // { host: '::1', port: 783 }
 */
export function spamdAddress(value: string | undefined): { host: string; port: number } | null {
  if (value === undefined || value.trim() === '') return null
  const match = SPAMD_ADDRESS.exec(value.trim())
  const port = Number(match?.[3] ?? 783)
  if (!match || port < 1 || port > 65535)
    throw new ConfigError(
      '--spamassassin',
      `expected spamd's host:port (localhost:783, [::1]:783), got ${JSON.stringify(value)}`,
    )
  return { host: match[1] ?? match[2]!, port }
}

/** An address or `*@domain`: no spaces, quotes, angle brackets or commas (they could add a recipient). */
const RELAY_PATTERN = /^(\*|[^\s@<>,;:"()[\]\\]+)@[a-z0-9-]+(\.[a-z0-9-]+)*$/i

function relayAllow(value: string | string[] | undefined): string[] {
  const patterns = list(value).map((p) => p.toLowerCase())
  for (const pattern of patterns)
    if (!RELAY_PATTERN.test(pattern))
      throw new ConfigError(
        '--relay-allow',
        `expected an address (me@acme.test) or *@domain (*@acme.test), got ${JSON.stringify(pattern)}`,
      )
  return [...new Set(patterns)]
}

/** `--store`, checked: a PostgreSQL URL, alone (never echoed: it may hold a password). */
function storeUrl({ store, db, memory }: SendboxOptions): string | null {
  if (store === undefined) return null
  if (typeof store !== 'string' || !/^postgres(ql)?:\/\/./i.test(store.trim()))
    throw new ConfigError(
      '--store',
      'expected a PostgreSQL URL, postgres://user:password@host:port/database (the value given is not shown: it may hold a password)',
    )
  if (db !== undefined || memory)
    throw new ConfigError(
      '--store',
      `cannot go with ${db !== undefined ? '--db' : '--memory'}: messages go to the database given by --store, not to a log file or memory`,
    )
  return store.trim()
}

/**
 * Validates options into the config every layer reads. Throws `ConfigError` for the first
 * option that is wrong, in the order below.
 *
 * @example
 * resolveConfig({ port: 0, memory: true }).dbFile // null
 */
export function resolveConfig(
  options: SendboxOptions = {},
  defaults: { open: boolean; logs: boolean } = { open: false, logs: false },
): SendboxConfig {
  const cwd = options.cwd ?? process.cwd()
  const limits = limitsOf(options)
  const templatesDir = folder('--templates', options.templates, DEFAULTS.templates, cwd)
  const tokenPrefixes = [
    DEFAULTS.tokenPrefix,
    ...list(options.tokenPrefix).filter((p) => p !== DEFAULTS.tokenPrefix),
  ]
  const secret = webhookSecret(options.webhookSecret)
  const port = options.port ?? DEFAULTS.port
  return {
    port: integer('--port', port, 0, 65535, 'a port number from 0 to 65535'),
    host: limits.host,
    templatesDir,
    ...storageOf(options, cwd, templatesDir),
    maxMessages: integer(
      '--max-messages',
      options.maxMessages ?? DEFAULTS.maxMessages,
      1,
      10_000_000,
      'a whole number of at least 1',
    ),
    tokens: list(options.token),
    tokenPrefixes,
    lenient: options.lenient ?? false,
    maxBody: limits.maxBody,
    maxLogBytes: limits.maxLogBytes,
    ...allowedHosts(options.allowedHosts),
    cors: [...new Set(list(options.cors).map(corsOrigin))],
    inspectorPassword: limits.inspectorPassword,
    projects: projectsOf(options, cwd),
    open: options.open ?? defaults.open,
    logs: options.logs ?? defaults.logs,
    webhooks: webhookUrls(options.webhook),
    webhookSecret: secret ?? generateWebhookSecret(),
    webhookSecretGenerated: secret === null,
    ...deliveryTimingOf(options),
    ...httpsOptions(options, cwd),
    ...relayOptionsOf(options),
    spamassassin: spamdAddress(options.spamassassin),
    spamassassinTimeoutMs: integer(
      'spamassassinTimeout',
      options.spamassassinTimeout ?? DEFAULTS.spamassassinTimeoutMs,
      1,
      600_000,
      'milliseconds',
    ),
  }
}

/** The sizes, the host and the inspector's password: checked first. */
function limitsOf(options: SendboxOptions) {
  const maxBody = parseSize(options.maxBody ?? DEFAULTS.maxBody)
  if (maxBody === null || maxBody < 1) {
    throw new ConfigError(
      '--max-body',
      `expected a size in bytes such as 1048576, 512kb or 2mb, got ${JSON.stringify(options.maxBody)}`,
    )
  }
  const host = (options.host ?? DEFAULTS.host).trim()
  if (host === '')
    throw new ConfigError('--host', 'expected a host name or IP address, got an empty value')
  const maxLogBytes = parseSize(options.maxLogBytes ?? DEFAULTS.maxLogBytes)
  if (maxLogBytes === null || maxLogBytes < 1) {
    throw new ConfigError(
      '--max-log-bytes',
      `expected a size in bytes such as 268435456, 512mb or 1gb, got ${JSON.stringify(options.maxLogBytes)}`,
    )
  }
  const password = options.inspectorPassword
  if (password !== undefined && (typeof password !== 'string' || password === '')) {
    throw new ConfigError(
      '--inspector-password',
      'expected a password; leave the flag out to keep the inspector open',
    )
  }
  return { maxBody, host, maxLogBytes, inspectorPassword: password ?? null }
}

/** The fixtures and snapshot folders, the snapshot clock, and where messages are kept. */
function storageOf(options: SendboxOptions, cwd: string, templatesDir: string) {
  return {
    fixturesDir: folder('--fixtures', options.fixtures, DEFAULTS.fixtures, cwd),
    // Beside the templates, not in the folder sendbox started in: `--templates ../shop/emails`
    // started from another checkout must not accept snapshots into that checkout.
    snapshotsDir: folder(
      '--snapshots',
      options.snapshots,
      join(dirname(templatesDir), 'snapshots'),
      cwd,
    ),
    snapshotNow: snapshotNow(options.snapshotNow),
    dbFile: options.memory || options.store ? null : resolve(cwd, options.db ?? DEFAULTS.db),
    store: storeUrl(options),
  }
}

/** Webhook retries and their backoff and timeout, and the delivery delay. */
function deliveryTimingOf(options: SendboxOptions) {
  return {
    webhookRetries: integer(
      '--webhook-retries',
      options.webhookRetries ?? DEFAULTS.webhookRetries,
      0,
      20,
      'a whole number of retries from 0 to 20',
    ),
    deliveryDelay: integer(
      '--delivery-delay',
      options.deliveryDelay ?? DEFAULTS.deliveryDelay,
      0,
      3_600_000,
      'milliseconds from 0 to 3600000',
    ),
    webhookBackoffMs: integer(
      'webhookBackoff',
      options.webhookBackoff ?? DEFAULTS.webhookBackoffMs,
      1,
      3_600_000,
      'milliseconds',
    ),
    webhookTimeoutMs: integer(
      'webhookTimeout',
      options.webhookTimeout ?? DEFAULTS.webhookTimeoutMs,
      1,
      600_000,
      'milliseconds',
    ),
  }
}

/** `--relay`, `--relay-allow` and the relay's timeout. */
function relayOptionsOf(options: SendboxOptions) {
  return {
    relay: relayConfig(options.relay),
    relayAllow: relayAllow(options.relayAllow),
    relayTimeoutMs: integer(
      'relayTimeout',
      options.relayTimeout ?? DEFAULTS.relayTimeoutMs,
      1,
      600_000,
      'milliseconds',
    ),
  }
}
