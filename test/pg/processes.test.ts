import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type RunningCli, startCli } from '../helpers/cli.js'
import { jsonOf } from '../helpers/http.js'
import { startCluster } from '../helpers/pg-cluster.js'
import { describePg, freshDatabase } from '../helpers/postgres.js'
import { openEventStream } from '../helpers/sse.js'
import { type Receiver, startReceiver } from '../helpers/receiver.js'

/**
 * Several `sendbox serve` processes on one database, as a team runs them (docs/team.md): real
 * processes, so that one can be SIGKILLed. Each has the same `--webhook`, pointing at one receiver.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

async function templatesDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sendbox-team-'))
  await writeFile(join(dir, 'hello.liquid'), '---\nsubject: Hi\n---\n<p>Hello</p>')
  return dir
}

function send(process: RunningCli, to: string): Promise<Response> {
  return fetch(`${process.url}/messages`, {
    method: 'POST',
    headers: { authorization: 'token sandbox_team', 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'hello', from: 'shop@acme.test', to, subject: 'Hi' }),
  })
}

/** The wait endpoint of one process: resolves with the record once it is in this state. */
async function waitFor(process: RunningCli, query: string): Promise<Record<string, any>> {
  const response = await fetch(`${process.url}/_sandbox/api/messages/wait?${query}&timeout=30000`)
  if (response.status !== 200) throw new Error(`wait ${query}: ${await response.text()}`)
  return jsonOf(response)
}

/** A promise and its resolve: what the load loop signals as it sees each phase. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

const api = (process: RunningCli, path: string) => jsonOf(fetch(`${process.url}${path}`))

/** The distinct events (by webhook-id) the receiver got for a message, by type. */
function eventsOf(receiver: Receiver, id: string): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>()
  for (const r of receiver.received.filter((r) => r.body.data.id === id)) {
    const ids = byType.get(r.body.type) ?? new Set<string>()
    ids.add(String(r.headers['webhook-id']))
    byType.set(r.body.type, ids)
  }
  return byType
}

describePg('processes on one database', () => {
  let store: string
  let templates: string
  let receiver: Receiver
  const running: RunningCli[] = []
  const start = async (extra: string[] = []) => {
    const process = await startCli([
      'serve',
      '--port',
      '0',
      '--store',
      store,
      '--templates',
      templates,
      '--webhook',
      receiver.url,
      '--webhook-secret',
      SECRET,
      ...extra,
    ])
    running.push(process)
    return process
  }

  beforeAll(async () => {
    store = await freshDatabase()
    templates = await templatesDir()
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await Promise.all(running.map((p) => (p.child.exitCode === null ? p.stop() : null)))
    await receiver?.close()
    await rm(templates, { recursive: true, force: true })
  })

  it('a bounce through one of two processes, each with the same --webhook: one bounced event, one request', async () => {
    const [a, b] = [await start(), await start()]
    const stream = await openEventStream(b.url)
    const sent = await send(a, 'bounce+once@example.com')
    expect(sent.status).toBe(201)
    const { id } = await jsonOf(sent)
    // The other process's event stream hears the deliveries too, whoever posted them.
    await stream.until((events) =>
      events.some(
        (e) =>
          e.event === 'webhook' &&
          e.data.messageId === id &&
          e.data.type === 'message.bounced' &&
          e.data.status === 'delivered',
      ),
    )
    stream.close()
    const record = await waitFor(b, `recipient=bounce%2Bonce@example.com&status=bounced`)
    expect(record.id).toBe(id)
    await receiver.until((got) =>
      got.some((r) => r.body.data.id === id && r.body.type === 'message.bounced'),
    )
    // Both processes list the same deliveries: one per event, each delivered.
    const lists = await Promise.all(
      [a, b].map((p) => api(p, `/_sandbox/api/webhooks?message=${id}`)),
    )
    for (const list of lists) {
      const settled = list.deliveries.filter((d: { status: string }) => d.status === 'delivered')
      expect(list.deliveries.map((d: { type: string }) => d.type).sort()).toEqual([
        'message.bounced',
        'message.sent',
      ])
      expect(settled).toHaveLength(list.deliveries.length)
    }
    expect(lists[0].deliveries.map((d: { id: string }) => d.id)).toEqual(
      lists[1].deliveries.map((d: { id: string }) => d.id),
    )
    // Every request the receiver got for it is one of those deliveries' attempts: one each.
    const attempts = lists[0].deliveries.reduce(
      (n: number, d: { attempts: unknown[] }) => n + d.attempts.length,
      0,
    )
    expect(receiver.typesFor(id).sort()).toEqual(['message.bounced', 'message.sent'])
    expect(attempts).toBe(2)
    const stored = await api(b, `/_sandbox/api/messages/${id}`)
    expect(stored.recipients[0].events.map((e: { type: string }) => e.type)).toEqual([
      'sent',
      'bounced',
    ])
    await Promise.all([a.stop(), b.stop()])
  }, 60_000)

  it('a process SIGKILLed with deliveries pending: the other finishes them and posts their webhooks', async () => {
    const [a, b] = [
      await start(['--delivery-delay', '1500']),
      await start(['--delivery-delay', '1500']),
    ]
    const addresses = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0 ? `bounce+k${i}@example.com` : `k${i}@example.com`,
    )
    const answers = await Promise.all(addresses.map((to) => send(a, to)))
    expect(answers.map((r) => r.status)).toEqual(addresses.map(() => 201))
    const ids: string[] = await Promise.all(answers.map(async (r) => (await jsonOf(r)).id))
    a.child.kill('SIGKILL')
    expect((await a.exited).signal).toBe('SIGKILL')
    // B carries out every step A left: each message reaches its last state.
    const records = await Promise.all(
      addresses.map((to) =>
        waitFor(
          b,
          `recipient=${encodeURIComponent(to)}&status=${to.startsWith('bounce') ? 'bounced' : 'delivered'}`,
        ),
      ),
    )
    expect(records.map((r) => r.id)).toEqual(ids)
    // And their webhooks: message.sent and the outcome, each one event (one webhook-id).
    await receiver.until(
      () =>
        ids.every((id) => {
          const events = eventsOf(receiver, id)
          return events.has('message.sent') && events.size === 2
        }),
      30_000,
    )
    for (const [i, id] of ids.entries()) {
      const events = eventsOf(receiver, id)
      const outcome = addresses[i]!.startsWith('bounce') ? 'message.bounced' : 'message.delivered'
      expect([...events.keys()].sort()).toEqual([outcome, 'message.sent'].sort())
      for (const webhookIds of events.values()) expect(webhookIds.size).toBe(1)
    }
    for (const record of records)
      expect(record.recipients[0].events.map((e: { type: string }) => e.type)).toHaveLength(2)
    await b.stop()
  }, 90_000)

  it('200+ concurrent sends split between two processes: each stored once, listed, counted, its webhooks once', async () => {
    const fresh = await freshDatabase()
    store = fresh
    const [a, b] = [await start(), await start()]
    const before = receiver.received.length
    const addresses = Array.from({ length: 220 }, (_, i) => `c${i}@example.com`)
    const answers = await Promise.all(addresses.map((to, i) => send(i % 2 ? b : a, to)))
    // A send refused says why, with the console of the process that refused it.
    const refused = await Promise.all(
      answers.map(async (r, i) =>
        r.status === 201
          ? null
          : `${r.status} ${await r.text()} ${(i % 2 ? b : a).output().stderr.slice(-2000)}`,
      ),
    )
    expect(refused.filter((why) => why !== null)).toEqual([])
    const ids: string[] = await Promise.all(answers.map(async (r) => (await jsonOf(r)).id))
    expect(new Set(ids).size).toBe(220)
    for (const p of [a, b]) {
      const listed = await api(p, '/_sandbox/api/messages?fields=summary&limit=1000')
      expect(listed.total).toBe(220)
      expect(new Set(listed.messages.map((m: { id: string }) => m.id))).toEqual(new Set(ids))
    }
    // message.sent and message.delivered for each, posted once each.
    const got = await receiver.until((all) => all.length - before >= 440, 60_000)
    const mine = got.slice(before)
    expect(new Set(mine.map((r) => r.headers['webhook-id'])).size).toBe(440)
    for (const id of ids) expect(eventsOf(receiver, id).get('message.delivered')?.size).toBe(1)
    await Promise.all([a.stop(), b.stop()])
  }, 120_000)
})

describePg('processes on one database that stops and starts again', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>
  let templates: string
  const running: RunningCli[] = []
  beforeAll(async () => {
    // A cluster of its own: this test stops it.
    cluster = await startCluster()
    templates = await templatesDir()
  }, 60_000)
  afterAll(async () => {
    await Promise.all(running.map((p) => (p.child.exitCode === null ? p.stop() : null)))
    await cluster?.destroy()
    await rm(templates, { recursive: true, force: true })
  })

  // Under load a process used to exit when the database stopped, inside the client (postgres.js
  // 3.4.9: a write on a closed connection thrown from a setImmediate; porsager/postgres#1154):
  // the bundled client carries the guard (scripts/bundle.js).
  it('under load: 503 during the outage, nothing acknowledged lost, sends work again without a restart', async () => {
    for (let i = 0; i < 2; i++)
      running.push(
        await startCli(['serve', '--port', '0', '--store', cluster.url, '--templates', templates]),
      )
    const acknowledged: string[] = []
    /** Phases, each begun by what the load saw: up, down (503s seen), up again (201s seen). */
    let phase: 'before' | 'outage' | 'after' = 'before'
    let refusedDuring = 0
    let acceptedAfter = 0
    const reached = { before: signal(), outage: signal(), after: signal() }
    let stop = false
    const sender = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const response = await send(running[n % 2]!, `load${n}-${i}@example.com`)
        if (response.status === 201) {
          acknowledged.push((await jsonOf(response)).id)
          if (phase === 'before' && acknowledged.length >= 40) reached.before.resolve()
          if (phase === 'after' && ++acceptedAfter >= 40) reached.after.resolve()
        } else {
          const error = await jsonOf(response)
          expect([response.status, error.error.code]).toEqual([503, 'store_unavailable'])
          if (phase === 'outage' && ++refusedDuring >= 20) reached.outage.resolve()
        }
      }
    }
    const senders = Array.from({ length: 6 }, (_, n) => sender(n))
    await reached.before.promise
    await cluster.stop()
    phase = 'outage'
    await reached.outage.promise
    await cluster.start()
    phase = 'after'
    await reached.after.promise
    stop = true
    await Promise.all(senders)
    expect(refusedDuring).toBeGreaterThanOrEqual(20)
    // One page holds them all (a list gives at most 1000).
    expect(acknowledged.length).toBeLessThan(1000)
    for (const process of running) {
      expect(process.child.exitCode).toBe(null)
      const listed = await api(process, '/_sandbox/api/messages?fields=summary&limit=1000')
      const ids = new Set(listed.messages.map((m: { id: string }) => m.id))
      expect(acknowledged.filter((id) => !ids.has(id))).toEqual([])
      expect((await fetch(`${process.url}/_sandbox/api/health`)).status).toBe(200)
    }
  }, 120_000)
})
