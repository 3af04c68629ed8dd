import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SendboxOptions } from '../../src/config.js'
import type { ProjectsDefinition } from '../../src/core/projects.js'
import { outcomeOf } from '../../src/core/outcomes.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { startTestSandbox, tempDir, type TestSandbox } from '../helpers/sandbox.js'
import {
  call,
  type Call,
  normalise,
  SIDES,
  type Side,
  type SideState,
  until,
} from '../helpers/store-pair.js'

/**
 * The two stores agree (docs/team.md): random sequences of sends, simulated events, clears,
 * deletes, suppressions, faults, rejected sends, restarts and reads (filtered, paged, after a
 * cursor, waits) are made over HTTP on a sandbox on the JSON Lines log and one on PostgreSQL,
 * started alike, and every answer must be the same on both, ids and times aside (store-pair.ts
 * says what is normalised, and why). fast-check shrinks a disagreement to its shortest sequence.
 *
 * Runs: SENDBOX_MODEL_RUNS per configuration (default 6: 8 to 11 s each, 20 to 24 s for the file
 * with its four sandboxes, beside other test files on two loaded cores); a longer hunt:
 * `SENDBOX_MODEL_RUNS=200 SENDBOX_PG_REQUIRED=1 npx vitest run test/pg/stores-agree.test.ts`.
 */

const A = 'sandbox_acme_model_0123'
const B = 'sandbox_billing_model_0123'
const ADMIN = 'sandbox_admin_model_0123'
const PROJECTS: ProjectsDefinition = {
  projects: { acme: { tokens: [A] }, billing: { tokens: [B] } },
  admin: { tokens: [ADMIN] },
}
const TOKENS = {
  acme: A,
  billing: B,
  admin: ADMIN,
  stranger: 'sandbox_stranger_1',
  // Without projects, a token that fails every send with its status (docs/delivery.md#faults).
  faulty: 'sandbox_fault_429_model',
  none: '',
}
type Who = keyof typeof TOKENS
const MAX_MESSAGES = 4
const RUNS = Number(process.env.SENDBOX_MODEL_RUNS ?? 6)

const TEMPLATES = {
  'welcome.liquid':
    '<p>Hi {{ name }}, <a href="https://acme.test/start?a=1&amp;b=2">start</a> <a href="https://acme.test/help">help</a></p>',
  'code.liquid': '<p>Your code is {{ code }}</p>',
  'broken.liquid': '<p>{% if %}</p>',
}

const ADDRESSES = [
  'ada@example.com',
  'Ada Lovelace <ada@example.com>',
  'bob+bounce@example.com',
  'spam@acme.test',
  'carol+softbounce@example.com',
  'Dave <dave+complaint@acme.test>',
  'EVE+Bounce@Example.com',
  'ada.lovelace@example.com',
]

/** Who reads or changes: mostly someone who sees the messages (the admin, acme sends most). */
const viewer = fc.constantFrom<Who>('admin', 'admin', 'acme', 'acme', 'billing')
/** One filter each, from values that match some of the sends and not others. */
const FILTERS = {
  to: fc.constantFrom('ada', 'bounce', 'EXAMPLE.COM', 'Dave <', 'lovelace', 'com, spam', '_'),
  recipient: fc.constantFrom('ada@example.com', 'Ada <ADA@example.com>', 'eve+bounce@example.com'),
  from: fc.constantFrom('acme', 'Shop', 'hello@'),
  template: fc.constantFrom('welcome', 'code', 'WEL', 'nope'),
  // `%`, `_` and `\\` are LIKE's own characters on PostgreSQL, NUL one its text cannot hold.
  // Left out: a needle with U+FFFF, which PostgreSQL's filter columns hold in place of NUL, so it
  // matches a message with a NUL there and not on the log (docs/team.md, limits).
  subject: fc.constantFrom('welcome', 'RESET', 'ünï', '✓', '%', '_', '\\', 'l\u0000h'),
  project: fc.constantFrom('acme', 'billing', 'admin', 'nope'),
  status: fc.constantFrom('sent', 'delivered', 'bounced', 'complained', 'suppressed', 'deferred'),
  since: fc.constantFrom('2020-01-01', '2999-01-01T00:00:00Z'),
}
/** Up to two filters at once: more match nothing, most of the time. */
const filter = fc
  .array(
    fc.oneof(
      ...Object.entries(FILTERS).map(([key, values]) =>
        values.map((value) => ({ [key]: value }) as Record<string, string>),
      ),
    ),
    { maxLength: 2 },
  )
  .map((parts): Record<string, string> => Object.assign({}, ...parts))
const paging = fc.record(
  {
    limit: fc.constantFrom(1, 2, 3, 1000),
    offset: fc.constantFrom(0, 1, 2, 5, Number.MAX_SAFE_INTEGER),
  },
  { requiredKeys: [] },
)

/** A send most likely accepted: a project's token, a template it renders, its variables. */
const goodSend = fc.record({
  op: fc.constant('send' as const),
  who: fc.constantFrom<Who>('acme', 'acme', 'billing', 'admin'),
  template: fc.constantFrom('welcome', 'welcome', 'code'),
  from: fc.constantFrom(
    'Acme <hello@acme.test>',
    'shop@acme.test',
    '"Shop, Inc." <shop@acme.test>',
  ),
  to: fc.oneof(
    fc.constantFrom(...ADDRESSES),
    fc.array(fc.constantFrom(...ADDRESSES), { minLength: 1, maxLength: 3 }),
  ),
  subject: fc.constantFrom(
    'Welcome',
    'Reset your password',
    'Ünïcode ✓',
    'welcome back',
    'Sale: 100% off_now \\ ok',
    'nul\u0000here',
  ),
  variables: fc.constant('ok'),
  prefer: fc.constant(undefined),
})
/** A send that may be refused anywhere along the checks (each refusal is kept: rejections). */
const anySend = fc.record({
  op: fc.constant('send' as const),
  who: fc.constantFrom<Who>('acme', 'billing', 'admin', 'stranger', 'none', 'faulty'),
  template: fc.constantFrom('welcome', 'code', 'broken', 'nope'),
  from: fc.constantFrom('Acme <hello@acme.test>', 'not a sender'),
  to: fc.array(fc.constantFrom(...ADDRESSES, 'not an address'), { minLength: 1, maxLength: 3 }),
  subject: fc.constantFrom('Welcome', 'Reset your password'),
  variables: fc.constantFrom('ok', 'none', 'misspelt'),
  prefer: fc.constantFrom(undefined, '503'),
})
const ops = fc.oneof(
  { weight: 6, arbitrary: goodSend },
  { weight: 2, arbitrary: anySend },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('simulate' as const),
      who: fc.constantFrom<Who>('admin', 'admin', 'admin', 'acme', 'billing'),
      msg: fc.nat(9),
      type: fc.constantFrom('opened', 'clicked', 'bounced', 'complained', 'delivered'),
      recipient: fc.constantFrom<number | 'first' | 'stranger'>(0, 1, 2, 'first', 'stranger'),
      url: fc.constantFrom('fitting', 'fitting', 'fitting', 'fitting', 'fitting', 'bogus', 'none'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('get' as const),
      who: viewer,
      msg: fc.nat(9),
      part: fc.constantFrom('', '', '/text', '/html'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('delete' as const), who: viewer, msg: fc.nat(9) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('list' as const),
      who: viewer,
      filter,
      paging,
      summary: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('mark' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('restart' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('listAfter' as const),
      who: viewer,
      cursor: fc.nat(3),
      filter,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('wait' as const),
      who: viewer,
      filter,
      after: fc.constantFrom<number | 'none'>('none', 'none', 0, 1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), who: viewer, filter }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('suppressions' as const),
      who: viewer,
      project: fc.constantFrom(undefined, 'acme', 'billing'),
      address: fc.constantFrom(undefined, 'bob+bounce@example.com', 'SPAM@acme.test'),
      one: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('unsuppress' as const),
      who: viewer,
      project: fc.constantFrom(undefined, 'acme', 'billing'),
      address: fc.constantFrom(undefined, 'bob+bounce@example.com', 'Eve+bounce@example.com'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('arm' as const),
      who: viewer,
      status: fc.constantFrom(429, 500, 503),
      count: fc.integer({ min: 1, max: 3 }),
      match: fc.record(
        { template: fc.constantFrom('welcome', 'code'), to: fc.constantFrom('ada', 'SPAM@') },
        { requiredKeys: [] },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('faults' as const), who: viewer }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('disarm' as const), who: viewer }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('rejections' as const), who: viewer, filter, paging }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('forget' as const), who: viewer }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('health' as const),
      who: fc.constantFrom<Who>('admin', 'acme', 'none'),
    }),
  },
)
/**
 * Random sequences; SENDBOX_MODEL_REPLAY, a counterexample as fast-check printed it (the JSON of
 * its sequence), runs that one alone.
 */
const sequences: fc.Arbitrary<Op[]> = process.env.SENDBOX_MODEL_REPLAY
  ? fc.constant(JSON.parse(process.env.SENDBOX_MODEL_REPLAY) as Op[])
  : fc.array(ops, { maxLength: 30, size: 'max' })
type Op = typeof ops extends fc.Arbitrary<infer T> ? T : never

/** What the runner knows of a side: its labels, the ids of the sends stored, its cursors. */
interface Run {
  state: Record<Side, SideState & { sent: string[]; cursors: string[]; dropped: number }>
  /** The recipients of each stored send, as sent (the same on both sides). */
  to: string[][]
}

const query = (values: Record<string, unknown>) => {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(values))
    if (value !== undefined) params.set(key, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/**
 * The id of a stored send on a side: the `n`th newest (modulo the newest MAX_MESSAGES, which may
 * still be there), or an id no message has before any.
 */
const idOf = (run: Run, side: Side, n: number) =>
  run.state[side].sent[newest(run, n)] ?? 'msg_00000000000000000000000000'
const newest = (run: Run, n: number) =>
  run.to.length - 1 - (n % Math.min(Math.max(run.to.length, 1), MAX_MESSAGES))

/** The request an op makes on a side. */
function callOf(op: Op, run: Run, side: Side): Call {
  const token = 'who' in op ? TOKENS[op.who] : ADMIN
  const api = '/_sandbox/api'
  switch (op.op) {
    case 'send':
      return {
        method: 'POST',
        path: '/messages',
        token,
        json: {
          template: op.template,
          from: op.from,
          to: op.to,
          subject: op.subject,
          ...(op.variables === 'ok' ? { templateVariables: { name: 'Ada', code: '482913' } } : {}),
          ...(op.variables === 'misspelt' ? { templateVars: { name: 'Ada' } } : {}),
        },
        ...(op.prefer ? { headers: { prefer: `code=${op.prefer}` } } : {}),
      }
    case 'simulate':
      return {
        method: 'POST',
        path: `${api}/messages/${idOf(run, side, op.msg)}/events`,
        token,
        json: eventOf(op, run.to[newest(run, op.msg)] ?? []),
      }
    case 'get':
      return { method: 'GET', path: `${api}/messages/${idOf(run, side, op.msg)}${op.part}`, token }
    case 'delete':
      return { method: 'DELETE', path: `${api}/messages/${idOf(run, side, op.msg)}`, token }
    case 'list':
      return {
        method: 'GET',
        path: `${api}/messages${query({ ...op.filter, ...op.paging, fields: op.summary ? 'summary' : undefined })}`,
        token,
      }
    case 'mark':
      return { method: 'GET', path: `${api}/messages?limit=1&fields=summary`, token }
    case 'listAfter':
      return {
        method: 'GET',
        path: `${api}/messages${query({ ...op.filter, after: cursorOf(run, side, op.cursor) })}`,
        token,
      }
    case 'wait':
      return {
        method: 'GET',
        path: `${api}/messages/wait${query({
          ...op.filter,
          timeout: 0,
          after: op.after === 'none' ? undefined : cursorOf(run, side, op.after),
        })}`,
        token,
      }
    case 'clear':
      return { method: 'DELETE', path: `${api}/messages${query(op.filter)}`, token }
    case 'suppressions':
      return op.one && op.address
        ? {
            method: 'GET',
            path: `${api}/suppressions/${encodeURIComponent(op.address)}${query({ project: op.project })}`,
            token,
          }
        : {
            method: 'GET',
            path: `${api}/suppressions${query({ project: op.project, address: op.address })}`,
            token,
          }
    case 'unsuppress':
      return {
        method: 'DELETE',
        path: `${api}/suppressions${op.address ? `/${encodeURIComponent(op.address)}` : ''}${query({ project: op.project })}`,
        token,
      }
    case 'arm':
      return {
        method: 'POST',
        path: `${api}/faults`,
        token,
        json: { status: op.status, count: op.count, match: op.match },
      }
    case 'faults':
      return { method: 'GET', path: `${api}/faults`, token }
    case 'disarm':
      return { method: 'DELETE', path: `${api}/faults`, token }
    case 'rejections':
      return {
        method: 'GET',
        path: `${api}/rejections${query({ ...op.filter, ...op.paging })}`,
        token,
      }
    case 'forget':
      return { method: 'DELETE', path: `${api}/rejections`, token }
    case 'health':
      return { method: 'GET', path: `${api}/health`, token }
    case 'restart':
      throw new Error('A restart is no request: step() makes it.')
  }
}

type Simulate = Extract<Op, { op: 'simulate' }>
/** The event to simulate: for one of the message's recipients (as sent), the first, or a stranger. */
function eventOf(op: Simulate, to: string[]) {
  const recipient =
    op.recipient === 'first'
      ? undefined
      : op.recipient === 'stranger'
        ? 'nobody@example.com'
        : to[op.recipient % Math.max(to.length, 1)]
  // `fitting`: a link of the message with `clicked`, none with the other types.
  const link = op.type === 'clicked' ? 'https://acme.test/start?a=1&b=2' : undefined
  const url = { fitting: link, bogus: 'https://elsewhere.test/', none: undefined }[op.url]
  return { type: op.type, ...(recipient ? { recipient } : {}), ...(url ? { url } : {}) }
}

/** A cursor a side handed out earlier (`mark`), or `0`, where an empty store stands, before any. */
function cursorOf(run: Run, side: Side, n: number): string {
  const { cursors } = run.state[side]
  return cursors.length ? cursors[n % cursors.length]! : '0'
}

type Answers = Record<Side, Awaited<ReturnType<typeof call>>>

/** What an op leaves the runner to note: a stored send's id (once it settled), a cursor. */
async function after(op: Op, run: Run, sides: Record<Side, TestSandbox>, answers: Answers) {
  if (op.op === 'send' && answers.json.status === 201 && answers.pg.status === 201) {
    for (const side of SIDES) {
      const { id } = answers[side].raw as { id: string }
      const { state } = run
      state[side].labels.set(id, `m${state[side].sent.length}`)
      state[side].sent.push(id)
      await settled(sides[side], id)
    }
    run.to.push(typeof op.to === 'string' ? [op.to] : op.to)
  }
  if (op.op === 'mark' && answers.json.status === 200)
    for (const side of SIDES)
      run.state[side].cursors.push((answers[side].raw as { cursor: string }).cursor)
}

/**
 * Resolves once every recipient of the message has taken its last automatic step (or the message
 * is gone, dropped by --max-messages): delivery happens after the 201, on each side in its own
 * time, and the next op must find both sides in the same state.
 */
async function settled(sandbox: TestSandbox, id: string): Promise<void> {
  type Read = { status: number; recipients?: { address: string; status: string }[] }
  await until(
    async (): Promise<Read> => {
      const response = await sandbox.api(`/_sandbox/api/messages/${id}`, { auth: ADMIN })
      return { status: response.status, ...((await response.json()) as object) }
    },
    (read) =>
      read.status === 404 ||
      (read.recipients ?? []).every(
        (r) =>
          ['bounced', 'complained', 'suppressed'].includes(r.status) ||
          (r.status === 'delivered' && outcomeOf(r.address) !== 'complained'),
      ),
  )
}

/** Empties both sides between runs (what a test suite does between tests), as the admin. */
async function reset(run: Run, sides: Record<Side, TestSandbox>) {
  run.to = []
  await Promise.all(
    SIDES.map(async (side) => {
      for (const path of ['messages', 'suppressions', 'faults', 'rejections'])
        await call(sides[side], { method: 'DELETE', path: `/_sandbox/api/${path}`, token: ADMIN })
      const health = await call(sides[side], {
        method: 'GET',
        path: '/_sandbox/api/health',
        token: ADMIN,
      })
      run.state[side] = {
        labels: new Map(),
        sent: [],
        cursors: [],
        dropped: (health.raw as { dropped: number }).dropped,
      }
    }),
  )
}

/**
 * An answer as compared: normalised; health's `dropped` counted from the run's start (or the
 * last restart: the log counts since its process started, the database since it was made), and
 * its `bytes` by sign: the log weighs a record it read or wrote by its line, exactly, a database
 * by size.ts's estimate (docs/team.md: --max-log-bytes does not apply to it), so only "none" and
 * "some" (and never fewer than none) mean the same on both; its `store` (kind and format) names
 * each side's own.
 */
function comparable(answer: Awaited<ReturnType<typeof call>>, run: Run, side: Side) {
  const { raw: _raw, ...rest } = answer
  const body = normalise(answer.raw, run.state[side]) as Record<string, unknown> | null
  if (body && typeof body.dropped === 'number') body.dropped -= run.state[side].dropped
  if (body && typeof body.bytes === 'number') body.bytes = Math.sign(body.bytes)
  // Which store answers, and its own format: the one thing health is meant to say differently.
  if (body && typeof body.store === 'object' && body.store) body.store = 'the store'
  return {
    ...rest,
    body,
    ...(rest.location ? { location: normalise(rest.location, run.state[side]) } : {}),
  }
}

/** Makes the op on both sides and holds their answers equal; notes what it leaves. */
async function step(op: Op, at: number, run: Run, pair: Pair) {
  const { sides } = pair
  if (op.op === 'restart') return restart(run, pair)
  const answers = Object.fromEntries(
    await Promise.all(
      SIDES.map(async (side) => [side, await call(sides[side], callOf(op, run, side))]),
    ),
  ) as Answers
  expect(comparable(answers.pg, run, 'pg'), `step ${at}: ${JSON.stringify(op)}`).toEqual(
    comparable(answers.json, run, 'json'),
  )
  await after(op, run, sides, answers)
}

/** The two sandboxes, and how to start each again on what it stored. */
interface Pair {
  sides: Record<Side, TestSandbox>
  start: Record<Side, () => Promise<TestSandbox>>
}

/**
 * Stops both sandboxes and starts them again on their log file and database. The recent
 * rejections and armed faults are cleared first: the log keeps them in its process's memory
 * (docs/inspector.md), the database for every process, so a restart ends them on one side only,
 * by design.
 */
async function restart(run: Run, pair: Pair) {
  await Promise.all(
    SIDES.map(async (side) => {
      for (const path of ['faults', 'rejections'])
        await call(pair.sides[side], {
          method: 'DELETE',
          path: `/_sandbox/api/${path}`,
          token: ADMIN,
        })
      await pair.sides[side].close()
      pair.sides[side] = await pair.start[side]()
      const health = await call(pair.sides[side], {
        method: 'GET',
        path: '/_sandbox/api/health',
        token: ADMIN,
      })
      run.state[side].dropped = (health.raw as { dropped: number }).dropped
      // Left out, as a cursor's business (issue 44, being changed elsewhere): a cursor taken
      // before a restart. The log numbers the records it replays from 0 again, so after
      // `send m0, cursor, send m1, send m2, delete m0, restart`, `after=<cursor>` lists m2 alone
      // on the log, m2 and m1 on PostgreSQL.
      run.state[side].cursors = []
    }),
  )
}

/** The property, on a pair of sandboxes started with `options`. */
function agreeWith(options: SendboxOptions) {
  const pair: Pair = { sides: {} as Pair['sides'], start: {} as Pair['start'] }
  const { sides } = pair
  beforeAll(async () => {
    const db = join(await tempDir('sendbox-agree-'), 'log.jsonl')
    const store = await freshDatabase()
    pair.start = {
      json: () => startTestSandbox(TEMPLATES, { ...options, memory: false, db }),
      pg: () => startTestSandbox(TEMPLATES, { ...options, memory: undefined, store }),
    }
    for (const side of SIDES) sides[side] = await pair.start[side]()
  })
  afterAll(async () => {
    await sides.json?.close()
    await sides.pg?.close()
  })

  it('any sequence of operations gets the same answers from both stores', async () => {
    const run: Run = { state: {} as Run['state'], to: [] }
    await fc.assert(
      fc.asyncProperty(sequences, async (sequence) => {
        await reset(run, sides)
        for (const [at, op] of sequence.entries()) await step(op, at, run, pair)
        // Emptied again, both hold nothing: what a run leaves behind shows in this run, not the next.
        await reset(run, sides)
        await step({ op: 'health', who: 'admin' }, sequence.length, run, pair)
      }),
      {
        numRuns: RUNS,
        // SENDBOX_MODEL_SEED (and SENDBOX_MODEL_PATH) replay a run that failed, as fast-check printed it.
        ...(process.env.SENDBOX_MODEL_SEED ? { seed: Number(process.env.SENDBOX_MODEL_SEED) } : {}),
        ...(process.env.SENDBOX_MODEL_PATH ? { path: process.env.SENDBOX_MODEL_PATH } : {}),
      },
    )
  }, 600_000)
}

describePg('the JSON Lines log and PostgreSQL answer alike', () => {
  // One operation at a time, each on one process per store, delivery settled before the next:
  // left out are (1) operations side by side, whose order each store may take its own way;
  // (2) cursors followed under concurrent senders, where PostgreSQL's `after=<cursor>` misses
  // messages committed out of `seq` order and reads the page and its cursor in two statements
  // (issue 44, being changed in store.ts's list() and cursor() now); (3) the event stream and
  // events across processes (channel.ts, changed with it).
  it.todo('cursors followed under 16 concurrent senders agree: every message once, on both stores')
  it.todo('the event stream of each store carries the same events for the same operations')
  it.todo('a cursor taken before a restart selects the same messages after it on both stores')

  // Projects: each token sees its own project's messages, the admin every one.
  describe('with projects', () => agreeWith({ projects: PROJECTS, maxMessages: MAX_MESSAGES }))
  // Without: every sandbox token sends, its project is a hash of it, the inspector is open.
  describe('without projects', () => agreeWith({ maxMessages: MAX_MESSAGES }))
})
