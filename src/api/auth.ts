import { createHash, timingSafeEqual } from 'node:crypto'
import type { Projects } from '../core/projects.js'
import { apiError } from '../http/errors.js'
import { EXPECTED_AUTHORIZATION as EXPECTED, TOKEN_SCHEME as SCHEME } from '../http/viewer.js'

export interface TokenPolicy {
  /** Exact tokens; when non-empty, the only ones accepted. */
  tokens: string[]
  /** Accepted prefixes (`sandbox_` first). */
  tokenPrefixes: string[]
  /** With `--projects`: the only tokens accepted, each sending as its project. */
  projects: Projects | null
}

/** Who sent a request. The full token stays in memory only for the length of the request. */
export interface Caller {
  /** First 8 hex chars of the token's SHA-256: groups messages by token without storing it. */
  project: string
  /** `sandbox_…f3a9`: enough to recognise a token, never enough to use it. */
  tokenHint: string
  token: string
}

/**
 * The token's project id: the first 8 hex characters of its SHA-256. Computed per request, not
 * cached: a cache keyed by the token kept raw tokens for the process's life, and keying it by a
 * hash costs what it saves (one SHA-256 of a token: ~0.7 µs; a send: hundreds of µs).
 *
 * @example projectOf('sandbox_dev') // 'ac1fbb1f'
 */
export function projectOf(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 8)
}

export function tokenHint(token: string, prefix = ''): string {
  const rest = token.slice(prefix.length)
  // Show the last 4 characters only when they are a small part of the secret.
  return `${prefix}…${rest.length >= 12 ? rest.slice(-4) : ''}`
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/**
 * Whether `token` is one of the `--token` values, in constant time: SHA-256 digests (equal
 * lengths) compared with timingSafeEqual, every configured token compared, no early exit.
 *
 * @example matchesExactToken('sandbox_ci', ['sandbox_ci', 'sandbox_dev']) // true
 */
export function matchesExactToken(token: string, tokens: readonly string[]): boolean {
  const given = sha256(token)
  let found = false
  for (const expected of tokens) found = timingSafeEqual(given, sha256(expected)) || found
  return found
}

/**
 * What a header with another scheme holds, in words: its scheme when it has one (`Bearer`,
 * `Basic`), never the credentials after it. A header of one word has no scheme, and that word
 * may be the token itself, so it is not repeated.
 *
 * @example schemeGot('Bearer sandbox_x') // 'the scheme is "Bearer", not "token"'
 */
function schemeGot(header: string): string {
  const [scheme, ...rest] = header.trim().split(/\s+/)
  if (rest.length === 0) return 'it has no scheme, only one word'
  return /^[A-Za-z][\w-]{0,19}$/.test(scheme!)
    ? `the scheme is "${scheme}", not "token"`
    : 'the scheme is not "token"'
}

/** Checks the Authorization header against the sandbox policy (docs/api.md#the-api). Throws 401/403. */
export function authenticate(header: string | null | undefined, policy: TokenPolicy): Caller {
  const match = header ? SCHEME.exec(header.trim()) : null
  if (!match) {
    const got = !header
      ? 'no Authorization header was sent'
      : /^token\s*$/i.test(header.trim())
        ? 'the token is missing'
        : schemeGot(header)
    throw apiError(
      401,
      'unauthorized',
      `Authenticate with the header "${EXPECTED}" (${got}); any token starting with "${policy.tokenPrefixes[0]}" works here.`,
      {
        headers: { 'www-authenticate': 'Token' },
      },
    )
  }
  const token = match[1]!
  if (policy.projects) return projectCaller(token, policy.projects)
  if (policy.tokens.length > 0) {
    if (!matchesExactToken(token, policy.tokens)) {
      throw apiError(
        403,
        'sandbox_token_required',
        `This is a local sandbox started with --token: it accepts only those exact tokens, and this is not one of them (while --token is set, the "${policy.tokenPrefixes[0]}" prefix alone is not enough).`,
      )
    }
    return { project: projectOf(token), tokenHint: tokenHint(token), token }
  }
  const prefix = policy.tokenPrefixes.find((p) => token.startsWith(p))
  if (prefix === undefined) {
    const accepted = policy.tokenPrefixes.map((p) => `"${p}"`).join(' or ')
    throw apiError(
      403,
      'sandbox_token_required',
      `This is a local sandbox: it accepts only sandbox tokens, which start with ${accepted}. Never send a live token here; use one like ${policy.tokenPrefixes[0]}dev.`,
    )
  }
  return { project: projectOf(token), tokenHint: tokenHint(token, prefix), token }
}

/** With projects: a listed token sends as its project (an admin token as `admin`); no other does. */
function projectCaller(token: string, projects: Projects): Caller {
  const identity = projects.identify(token)
  if (!identity)
    throw apiError(
      403,
      'sandbox_token_required',
      "This sandbox has projects (--projects): it accepts only the tokens its projects file lists, and this is not one of them. Ask whoever runs it for your project's token.",
    )
  const prefix = token.startsWith('sandbox_') ? 'sandbox_' : ''
  return { project: identity.project, tokenHint: tokenHint(token, prefix), token }
}
