import { createHash, timingSafeEqual } from 'node:crypto'
import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'
import type { Node } from 'yaml'

// yaml is loaded with the first projects file, not with this module: bundled and imported, its
// ~50 CommonJS modules were evaluated by every start and every `--version` (~15 ms of CPU,
// `node --cpu-prof`), which seldom read one. Required at run time, it is not bundled here.
const require = createRequire(import.meta.url)
const yaml = (): typeof Yaml => require('yaml') as typeof Yaml

/**
 * Projects: each team's mail behind its own tokens (docs/team.md#projects-each-teams-mail-behind-its-own-tokens). A projects file names
 * the projects, the tokens that send and read as each, their own webhooks, and the admin tokens
 * that see every project. Without one, sendbox is the single-user sandbox it always was: any
 * sandbox token sends, and the inspector is open to whoever reaches it.
 */

/** A webhook endpoint of one project: its events only, signed with its own secret. */
export interface ProjectWebhook {
  url: string
  secret: string
}

/** The projects file as `startSendbox({ projects })` takes it (the same shape as the file). */
export interface ProjectsDefinition {
  projects: Record<string, { tokens: string[]; webhooks?: ProjectWebhook[] }>
  admin?: { tokens: string[] }
}

/**
 * Who a token is: a project's (its messages only) or an admin's (every project). `project` is
 * the name a message sent with it is stored under; an admin's sends go to the project `admin`.
 */
export type Identity = { kind: 'project'; project: string } | { kind: 'admin'; project: 'admin' }

/** The projects of a sandbox, as the routes ask about them. */
export interface Projects {
  /** The project names, in the file's order. */
  readonly names: readonly string[]
  /** Who the token is, or undefined when no project lists it. Constant time in the token. */
  identify(token: string): Identity | undefined
  /** A project's own webhooks (none for `admin` or an unknown name). */
  webhooksOf(project: string): readonly ProjectWebhook[]
  /** The first project's first token: what `sandbox.token` is, for an in-process test suite. */
  readonly sampleToken: string
}

/** The project an admin token's sends are stored under; no project of the file may take it. */
export const ADMIN_PROJECT = 'admin'

/** A projects file that cannot be used: where and why (`file:line:column  problem`). */
export class ProjectsFileError extends Error {
  override name = 'ProjectsFileError'
  readonly code = 'projects_invalid'
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/**
 * The projects of a definition, checked as the file is (see `parseProjects`).
 *
 * @example
 * const projects = createProjects({ projects: { acme: { tokens: ['sandbox_acme_ci'] } } })
 * projects.identify('sandbox_acme_ci') // { kind: 'project', project: 'acme' }
 * projects.identify('sandbox_other')   // undefined
 */
export function createProjects(definition: ProjectsDefinition, source = 'projects'): Projects {
  const entries = checkDefinition(definition, failIn(source))
  // Every token is compared, always, as SHA-256 digests of one length: how long an answer takes
  // says nothing of how much of a token was right, nor which entry it matched.
  const digests = entries.map(({ token, identity }) => ({ digest: digest(token), identity }))
  const webhooks = new Map(
    Object.entries(definition.projects).map(([name, p]) => [name, p.webhooks ?? []] as const),
  )
  return {
    names: Object.keys(definition.projects),
    identify(token) {
      const given = digest(token)
      let found: Identity | undefined
      for (const entry of digests)
        if (timingSafeEqual(given, entry.digest) && !found) found = entry.identity
      return found
    },
    webhooksOf: (project) => webhooks.get(project) ?? [],
    sampleToken: entries[0]!.token,
  }
}

/** Where a problem of a definition is: a project (or `admin`), and a token of its list. */
interface Place {
  owner: string
  token?: number
}

type Fail = (problem: string, place: Place) => never

/** `createProjects`' failures: the source, and the problem. */
const failIn =
  (source: string): Fail =>
  (problem) => {
    throw new ProjectsFileError(`${source}: ${problem}`)
  }

/**
 * Each token with who it is. Every rule of a definition is checked here, once, for the
 * `projects` option and the file alike (`parseProjects` says where in the file a problem is):
 * names, a token listed twice (across projects too), an empty list, webhooks.
 */
function checkDefinition(definition: ProjectsDefinition, fail: Fail) {
  if (!definition || typeof definition !== 'object' || !definition.projects)
    fail('has no "projects" (a map of project names to their tokens)', { owner: '' })
  const entries: { token: string; identity: Identity }[] = []
  const seen = new Map<string, string>()
  const add = (tokens: readonly string[], identity: Identity, owner: string) =>
    tokens.forEach((token, index) => {
      const earlier = seen.get(token)
      if (earlier) fail(`${owner}: this token is already ${earlier}'s`, { owner, token: index })
      seen.set(token, owner)
      entries.push({ token, identity })
    })
  for (const [name, project] of Object.entries(definition.projects)) {
    const place = { owner: name }
    if (!NAME.test(name))
      fail(`"${name.slice(0, 64)}" is not a project name (letters, digits, ".", "_", "-")`, place)
    if (name === ADMIN_PROJECT)
      fail(`"${ADMIN_PROJECT}" is the admin tokens' own: name it so`, place)
    if (!project?.tokens?.length) fail(`project "${name}" has no tokens`, place)
    add(project.tokens, { kind: 'project', project: name }, name)
    for (const hook of project.webhooks ?? []) checkWebhook(hook, name, fail)
  }
  if (definition.admin) {
    if (!definition.admin.tokens?.length) fail('"admin" has no tokens', { owner: 'admin' })
    add(definition.admin.tokens, { kind: 'admin', project: ADMIN_PROJECT }, 'admin')
  }
  return entries
}

function checkWebhook(hook: ProjectWebhook, name: string, fail: Fail) {
  let url: URL | undefined
  try {
    url = new URL(hook.url)
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    fail(`a webhook of "${name}" has no http(s) url`, { owner: name })
  if (typeof hook.secret !== 'string' || !WEBHOOK_SECRET.test(hook.secret))
    fail(`a webhook of "${name}" needs a secret "whsec_<base64>"`, { owner: name })
}

type NodeFail = (node: Node | null | undefined, problem: string, offset?: number) => never

/** A list of tokens in the file: one or more non-blank strings. */
function tokenList(node: unknown, owner: string, where: unknown, fail: NodeFail): string[] {
  if (!yaml().isSeq(node) || node.items.length === 0)
    return fail((node ?? where) as Node, `${owner} needs "tokens": a list of one or more`)
  return node.items.map((item) => {
    if (!yaml().isScalar(item) || typeof item.value !== 'string' || item.value.trim() === '')
      return fail(item as Node, `${owner}: a token is not a string`)
    return item.value
  })
}

/** Where each owner (a project, `admin`) is in the file: its key, and its tokens' items. */
type Places = Map<string, { key: Node; tokens: unknown }>

/** One project of the file, read into `definition`, its nodes into `places`. */
function readProject(
  entry: { key: unknown; value: unknown },
  definition: ProjectsDefinition,
  places: Places,
  fail: NodeFail,
): void {
  const name = yaml().isScalar(entry.key) ? String(entry.key.value) : ''
  if (!yaml().isMap(entry.value)) fail(entry.value as Node, `project "${name}" needs "tokens"`)
  const project = entry.value as { get(key: string, keep: true): unknown }
  const tokens = project.get('tokens', true)
  const list = tokenList(tokens, `project "${name}"`, entry.value, fail)
  const hooks = project.get('webhooks', true)
  const webhooks = hooks === undefined ? undefined : webhookList(hooks, name, fail)
  definition.projects[name] = { tokens: list, ...(webhooks ? { webhooks } : {}) }
  places.set(name, { key: entry.key as Node, tokens })
}

/** `admin` of the file, read into `definition`, its nodes into `places`. */
function readAdmin(
  pair: { key: unknown; value: unknown },
  definition: ProjectsDefinition,
  places: Places,
  fail: NodeFail,
): void {
  const admin = pair.value as { get?(key: string, keep: true): unknown }
  if (!yaml().isMap(admin)) fail(pair.value as Node, '"admin" needs "tokens"')
  const tokens = admin.get!('tokens', true)
  definition.admin = { tokens: tokenList(tokens, '"admin"', pair.value, fail) }
  places.set('admin', { key: pair.key as Node, tokens })
}

/**
 * The definition's rules (`checkDefinition`), with a problem placed in the file: a token at its
 * item, anything else at its project's name.
 */
function checkPlaced(definition: ProjectsDefinition, places: Places, fail: NodeFail): void {
  checkDefinition(definition, (problem, place) => {
    const at = places.get(place.owner)
    const items = (at?.tokens as { items?: Node[] } | undefined)?.items
    if (place.token !== undefined && items?.[place.token]) return fail(items[place.token], problem)
    return fail(at?.key, problem)
  })
}

/**
 * Reads a projects file's text (YAML, or JSON, which YAML reads too) into a definition. A
 * problem is thrown as `ProjectsFileError` naming the file, the line and the column:
 * `projects.yml:4:9  project "acme": a token is not a string`.
 *
 * @example
 * parseProjects('projects:\n  acme:\n    tokens: [sandbox_acme_ci]\n', 'projects.yml')
 * // { projects: { acme: { tokens: ['sandbox_acme_ci'] } } }
 */
export function parseProjects(text: string, file: string): ProjectsDefinition {
  const lines = new (yaml().LineCounter)()
  const doc = yaml().parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
  })
  const fail: NodeFail = (node, problem, offset) => {
    const { line, col } = lines.linePos(offset ?? node?.range?.[0] ?? 0)
    throw new ProjectsFileError(`${file}:${line}:${col}  ${problem}`)
  }
  const [error] = doc.errors
  if (error) fail(null, `does not parse: ${error.message.split('\n')[0]}`, error.pos[0])
  const root = doc.contents
  if (!yaml().isMap(root)) return fail(root, 'expected a map with "projects" (and "admin")')
  const definition: ProjectsDefinition = { projects: {} }
  const places: Places = new Map()
  for (const pair of root.items) {
    const key = yaml().isScalar(pair.key) ? String(pair.key.value) : ''
    if (key === 'projects') {
      if (!yaml().isMap(pair.value) || pair.value.items.length === 0)
        fail(pair.value as Node, '"projects" needs one or more projects')
      // Each project checked as it is read: the first problem in the file is the one named.
      for (const entry of (pair.value as { items: { key: unknown; value: unknown }[] }).items) {
        readProject(entry, definition, places, fail)
        checkPlaced(definition, places, fail)
      }
    } else if (key === 'admin') {
      readAdmin(pair, definition, places, fail)
      checkPlaced(definition, places, fail)
    } else
      fail(
        pair.key as Node,
        `"${key.slice(0, 40)}" is not known here: the file has "projects" and "admin"`,
      )
  }
  if (Object.keys(definition.projects).length === 0) fail(root, 'has no "projects"')
  return definition
}

function webhookList(node: unknown, name: string, fail: NodeFail): ProjectWebhook[] {
  if (!yaml().isSeq(node)) return fail(node as Node, `project "${name}": "webhooks" is a list`)
  return node.items.map((item) => {
    const value = (item as { toJSON(): unknown }).toJSON?.() as Partial<ProjectWebhook> | undefined
    if (!yaml().isMap(item) || typeof value?.url !== 'string' || typeof value.secret !== 'string')
      return fail(item as Node, `project "${name}": a webhook needs "url" and "secret"`)
    return { url: value.url, secret: value.secret }
  })
}
