import { deleteCookie, setCookie } from 'h3'
import * as v from 'valibot'
import { defineOperation } from '../http/define.js'
import { apiError } from '../http/errors.js'
import { PUBLIC_ACCESS, SESSION_COOKIE, type Viewer, viewerOfToken } from '../http/viewer.js'
import { described, object, string } from '../lib/schema.js'
import type { AppContext } from '../http/context.js'

/**
 * The inbox page's sign-in (docs/team.md#projects-each-teams-mail-behind-its-own-tokens). The page asks for a token once; this route
 * checks it and keeps it in a cookie for the browser session: HttpOnly (no script of any page
 * reads it), SameSite=Strict (no other site's request carries it), scoped to /_sandbox, never
 * in a URL. Every process of a shared sandbox reads the same cookie, so a load balancer may
 * send each request anywhere.
 */

const SESSION = v.object({
  projects: described(
    v.boolean(),
    'Whether the sandbox has projects (--projects); without, everyone sees everything.',
  ),
  signedIn: described(
    v.boolean(),
    'Whether this request carries a valid token (header or session).',
  ),
  project: described(
    v.nullable(v.string()),
    'The project it sees; null for an admin token, or a sandbox without projects (every project).',
  ),
  admin: described(v.boolean(), 'Whether it may see every project and change what they share.'),
})

const SIGN_IN = object(
  {
    token: string({
      minLength: 1,
      maxLength: 4096,
      description: "A project's or an admin's token, as the projects file lists it.",
      examples: ['sandbox_acme_staging'],
    }),
  },
  { description: 'The token to sign in with.' },
)

/** The session cookie's attributes, the same when it is set and when it is removed. */
const cookieOf = (ctx: AppContext) =>
  ({ httpOnly: true, sameSite: 'strict', path: '/_sandbox', secure: ctx.config.https }) as const

function sessionOf(ctx: AppContext, viewer: Viewer | null) {
  return {
    projects: ctx.config.projects !== null,
    signedIn: viewer !== null,
    project: viewer?.project ?? null,
    admin: viewer?.admin ?? false,
  }
}

export const sessionOperations = [
  defineOperation({
    method: 'GET',
    path: '/_sandbox/api/session',
    operationId: 'getSession',
    tag: 'inspector',
    security: PUBLIC_ACCESS,
    summary: 'Who the caller is: its project, or every project.',
    description:
      'Answers anyone: `signedIn` false (with projects) when no valid token came. The inbox page asks it first, to know whether to ask for a token.',
    success: { status: 200, description: 'The session.', schema: SESSION },
    handler: ({ ctx, caller }) => sessionOf(ctx, caller),
  }),
  defineOperation({
    method: 'POST',
    path: '/_sandbox/api/session',
    operationId: 'signIn',
    tag: 'inspector',
    security: PUBLIC_ACCESS,
    summary: 'Sign the browser in with a token (a session cookie).',
    description:
      'Checks the token and sets the `sendbox_token` cookie: HttpOnly, SameSite=Strict, Path=/_sandbox, Secure over HTTPS, no expiry (the browser session). 401 when no project lists the token.',
    body: { schema: SIGN_IN, description: 'The token.', limit: () => 8 * 1024 },
    success: { status: 200, description: 'Signed in.', schema: SESSION },
    errors: [[401, 'unauthorized']],
    handler({ ctx, event, body }) {
      const viewer = viewerOfToken(body.token, ctx)
      if (!viewer)
        throw apiError(
          401,
          'unauthorized',
          "No project of this sandbox has that token. Ask whoever runs it for your project's token.",
          { headers: { 'www-authenticate': 'Token' } },
        )
      // Without projects there is nothing to sign in to: the answer says so, and sets nothing.
      if (ctx.config.projects) setCookie(event, SESSION_COOKIE, body.token, cookieOf(ctx))
      return sessionOf(ctx, viewer)
    },
  }),
  defineOperation({
    method: 'DELETE',
    path: '/_sandbox/api/session',
    operationId: 'signOut',
    tag: 'inspector',
    security: PUBLIC_ACCESS,
    summary: 'Sign the browser out: the session cookie is removed.',
    description: 'Always 204, signed in or not.',
    success: { status: 204, description: 'Signed out.' },
    handler({ ctx, event }) {
      deleteCookie(event, SESSION_COOKIE, cookieOf(ctx))
    },
  }),
]
