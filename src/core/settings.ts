/**
 * What the domain reads of a sandbox's configuration: the settings, resolved and checked. Where
 * they come from (flags, `SENDBOX_*` variables, `startSendbox` options) and how they are checked
 * is the server's business (`src/config.ts`, `resolveConfig`).
 */
import type { Projects } from './projects.js'

/** `--relay`, parsed. Printing it (or its JSON) never shows the password. */
export interface RelayConfig {
  /** `smtp://host:port` or `smtps://host:port`: no user, no password; what may be shown. */
  url: string
  host: string
  port: number
  /** `smtps://`: TLS from the start; `smtp://` upgrades with STARTTLS when the server offers it. */
  secure: boolean
  /** `?tls=insecure`: a certificate no CA vouches for is accepted (a local test server's). */
  insecureTls: boolean
  user: string | null
  /** A function, so that the config logged or serialised never holds the password itself. */
  password(): string | null
}

export interface SendboxConfig {
  port: number
  host: string
  templatesDir: string
  fixturesDir: string
  snapshotsDir: string
  /** RFC 3339: what `"now"` is in snapshot renders. */
  snapshotNow: string
  /** null with `memory` or `store`. */
  dbFile: string | null
  /** The PostgreSQL URL (`--store`), or null for the log. It holds the password: never print it. */
  store: string | null
  maxMessages: number
  /** Exact tokens; when non-empty, the only ones accepted. */
  tokens: string[]
  /** Accepted prefixes, `sandbox_` first. */
  tokenPrefixes: string[]
  lenient: boolean
  maxBody: number
  maxLogBytes: number
  /** Host names allowed besides localhost, `*.localhost` and IP literals (lowercased; `.x` = x and its subdomains). */
  allowedHosts: string[]
  /** `--allowed-host all`: no Host check. */
  anyHost: boolean
  /** Origins allowed on the emulated API (CORS), normalised like `http://localhost:3000`. */
  cors: string[]
  /** null: the inspector is open (it is, unless --inspector-password). */
  inspectorPassword: string | null
  /** The projects (`--projects`), or null: one sandbox, every token one project of its own. */
  projects: Projects | null
  open: boolean
  logs: boolean
  /** Webhook endpoints, as given (validated http(s) URLs). */
  webhooks: string[]
  /** `whsec_<base64>`, given or generated. */
  webhookSecret: string
  /** Whether the secret was generated at start (so the banner prints it). */
  webhookSecretGenerated: boolean
  webhookRetries: number
  deliveryDelay: number
  webhookBackoffMs: number
  webhookTimeoutMs: number
  /** Serving HTTPS. */
  https: boolean
  /** `--https-cert`/`--https-key`, resolved; null: the local CA's certificate. */
  httpsCert: string | null
  httpsKey: string | null
  /** Days a new server certificate of the local CA is valid. */
  httpsCertDays: number
  /** `--relay`, or null. */
  relay: RelayConfig | null
  /** `--relay-allow` patterns, lowercased: `me@acme.test`, `*@acme.test`. */
  relayAllow: string[]
  relayTimeoutMs: number
  /** `--spamassassin`: the spamd that scores messages for spam, or null. */
  spamassassin: { host: string; port: number } | null
  /** How long a score may take in all (connection and answer): 10 s unless a test shortens it. */
  spamassassinTimeoutMs: number
}
