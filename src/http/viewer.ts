import { getCookie, type H3Event } from 'h3'
import type { AppContext } from './context.js'
import type { MessageFilter } from '../store/types.js'
import type { Access, ErrorRef, Security } from './define.js'

export type { Access }
import { apiError } from './errors.js'

/**
 * The caller's project on the inspector (docs/team.md#projects-each-teams-mail-behind-its-own-tokens). Every inspector route says, in
 * its definition, what a caller may reach (its `security`, one of those below): registering one
 * without it throws at start (`registerOperations`), and test/projects/scoping.test.ts walks
 * every route of the table with one project's token against another's data.
 *
 * Without a projects file there is one sandbox and every caller sees all of it, as before.
 */
export interface Viewer {
  /** The project it sees, or null: every project (an admin token, or no projects file). */
  project: string | null
  /** May write fixtures, accept snapshots and see every project. */
  admin: boolean
}

/** The cookie the inbox page's sign-in sets: the token, HttpOnly, never readable by a script. */
export const SESSION_COOKIE = 'sendbox_token'

export const EXPECTED_AUTHORIZATION = 'Authorization: token <API_TOKEN>'
/** `token <value>`, the scheme word in any case. */
export const TOKEN_SCHEME = /^token[ \t]+(\S+)[ \t]*$/i

/** Everything, for a sandbox without projects. */
const EVERYTHING: Viewer = { project: null, admin: true }

/** A project name no project can have (names start with a letter or digit): matches nothing. */
const NO_PROJECT = '-'

/**
 * The token a request carries: `Authorization: token …`, else the inbox's session cookie.
 *
 * @example tokenOf(event) // 'sandbox_acme_ci', or undefined
 */
export function tokenOf(event: H3Event): string | undefined {
  const header = event.req.headers.get('authorization')
  const match = header ? TOKEN_SCHEME.exec(header.trim()) : null
  return match?.[1] ?? getCookie(event, SESSION_COOKIE) ?? undefined
}

/**
 * Who is asking, or undefined when projects are on and no listed token came.
 *
 * @example viewerOf(event, ctx) // { project: 'acme', admin: false }
 */
export function viewerOf(event: H3Event, ctx: AppContext): Viewer | undefined {
  return viewerOfToken(tokenOf(event), ctx)
}

/**
 * Who a token is on the inspector, or undefined when projects are on and no project lists it.
 *
 * @example viewerOfToken('sandbox_admin_5c1d', ctx) // { project: null, admin: true }
 */
export function viewerOfToken(token: string | undefined, ctx: AppContext): Viewer | undefined {
  const projects = ctx.config.projects
  if (!projects) return EVERYTHING
  const identity = token === undefined ? undefined : projects.identify(token)
  if (!identity) return undefined
  return identity.kind === 'admin'
    ? { project: null, admin: true }
    : { project: identity.project, admin: false }
}

function signIn(event: H3Event): never {
  const header = event.req.headers.get('authorization')
  const got = header
    ? TOKEN_SCHEME.test(header.trim())
      ? 'that token is not in the projects file'
      : `the header's scheme is "${header.trim().split(/\s/)[0]!.slice(0, 20)}", not "token"`
    : 'no token was sent'
  throw apiError(
    401,
    'unauthorized',
    `This sandbox has projects: the inspector takes a project's or an admin's token, as "${EXPECTED_AUTHORIZATION}" (${got}). The inbox page asks for one.`,
    { headers: { 'www-authenticate': 'Token' } },
  )
}

const SIGNED_IN_ERRORS: readonly ErrorRef[] = [[401, 'unauthorized']]

/** A route of one project's data: the caller's project, or every project for an admin. */
export const PROJECT_ACCESS: Security<Viewer> = {
  scheme: 'token',
  access: 'project',
  check: (event, ctx) => viewerOf(event, ctx) ?? signIn(event),
  errors: SIGNED_IN_ERRORS,
}

/** A route of what every project shares: any valid token. */
export const SHARED_ACCESS: Security<Viewer> = { ...PROJECT_ACCESS, access: 'shared' }

/** A route that changes what every project shares: an admin token. */
export const ADMIN_ACCESS: Security<Viewer> = {
  scheme: 'token',
  access: 'admin',
  check(event, ctx) {
    const viewer = viewerOf(event, ctx) ?? signIn(event)
    if (!viewer.admin)
      throw apiError(
        403,
        'admin_token_required',
        "This changes what every project shares (fixtures, snapshots): it takes an admin token, one of the projects file's `admin.tokens`.",
      )
    return viewer
  },
  errors: [...SIGNED_IN_ERRORS, [403, 'admin_token_required']],
}

/** A route that answers anyone: the viewer when a valid token came, else null. */
export const PUBLIC_ACCESS: Security<Viewer | null> = {
  scheme: 'token',
  access: 'public',
  check: (event, ctx) => viewerOf(event, ctx) ?? null,
  errors: [],
}

/**
 * A filter narrowed to what the viewer sees: a project's `project` filter is its own; naming
 * another matches nothing (as if it had no messages).
 *
 * @example scoped({ to: 'ada' }, { project: 'acme', admin: false }) // { to: 'ada', project: 'acme' }
 */
export function scoped<F extends Pick<MessageFilter, 'project'>>(filter: F, viewer: Viewer): F {
  if (viewer.project === null) return filter
  const project =
    filter.project === undefined || filter.project === viewer.project ? viewer.project : NO_PROJECT
  return { ...filter, project }
}

/**
 * Whether the viewer sees what belongs to `project`.
 *
 * @example sees({ project: 'acme', admin: false }, 'billing') // false
 */
export function sees(viewer: Viewer, project: string | undefined): boolean {
  return viewer.project === null || viewer.project === project
}
