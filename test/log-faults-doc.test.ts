import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../src/server/index.js'
import { openMessageLog } from '../src/store/index.js'
import { ROOT } from './helpers/cli.js'
import { TOKEN, tempDir, writeFiles } from './helpers/sandbox.js'
import { faultyFs } from './store/faulty-fs.js'
import { makeRecord } from './store/helpers.js'

/**
 * Every example of docs/log-faults.md, against what sendbox really answers and says: the 507
 * answer, the console lines, the health answer, the event-stream frame. In the examples "…"
 * stands for any text, and /repo/.sendbox/messages.jsonl for the log's path.
 */

const DOC = join(ROOT, 'docs', 'log-faults.md')

function blocks(markdown: string): { lang: string; body: string }[] {
  return [...markdown.matchAll(/^ *```(\w*)\n([\s\S]*?)\n *```$/gm)].map((m) => ({
    lang: m[1]!,
    body: m[2]!.replace(/^ {2}/gm, ''),
  }))
}

/** A string like the example: "…" is any text. */
const like = (actual: string, example: string) =>
  new RegExp(
    `^${example
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*')}$`,
  ).test(actual)

/** The example's keys, each like its value (an answer may hold more keys than an excerpt). */
function matches(actual: unknown, example: unknown): boolean {
  if (typeof example === 'string') return typeof actual === 'string' && like(actual, example)
  if (Array.isArray(example))
    return (
      Array.isArray(actual) &&
      actual.length === example.length &&
      example.every((item, i) => matches(actual[i], item))
    )
  if (example && typeof example === 'object')
    return Object.entries(example).every(([key, value]) =>
      matches((actual as Record<string, unknown> | null)?.[key], value),
    )
  return actual === example
}

describe('docs/log-faults.md', () => {
  const disk = faultyFs()
  let dir: string
  let server: RunningServer
  let file: string
  let examples: { lang: string; body: string }[]
  beforeAll(async () => {
    examples = blocks(await readFile(DOC, 'utf8'))
    dir = await tempDir()
    file = join(dir, '.sendbox', 'messages.jsonl')
    await writeFiles(join(dir, 'templates'), { 'welcome.liquid': 'Hello' })
    server = await startServer(
      { port: 0, templates: join(dir, 'templates'), db: file, fixtures: join(dir, 'fixtures') },
      { open: false, logs: false },
      { logFs: disk.fs },
    )
  })
  afterAll(async () => {
    await server?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('has the examples this test runs', () => {
    expect(examples.map((b) => b.lang)).toEqual(['json', 'text', 'text', 'json', 'text'])
  })

  it('the 507 answer, the health answer and the event-stream frame', async () => {
    const events = await fetch(`${server.url}/_sandbox/api/events`)
    disk.fail('ENOSPC')
    const answer = await fetch(`${server.url}/messages`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        template: 'welcome',
        from: 'a@acme.test',
        to: 'b@x.test',
        subject: 'Hi',
      }),
    })
    expect(answer.status).toBe(507)
    expect(matches(await answer.json(), JSON.parse(examples[0]!.body))).toBe(true)
    const health = await (await fetch(`${server.url}/_sandbox/api/health`)).json()
    expect(health, JSON.stringify(health)).toSatisfy((h) =>
      matches(h, JSON.parse(examples[3]!.body)),
    )
    const decoder = new TextDecoder()
    let text = ''
    for await (const chunk of events.body!) {
      text += decoder.decode(chunk as Uint8Array, { stream: true })
      if (text.includes('event: log\n') && text.endsWith('\n\n')) break
    }
    const frame = text.slice(text.indexOf('event: log\n')).trim()
    const [eventLine, dataLine] = examples[4]!.body.split('\n')
    expect(frame.split('\n')[0]).toBe(eventLine)
    const data = JSON.parse(frame.split('\n')[1]!.slice('data: '.length))
    expect(matches(data, JSON.parse(dataLine!.slice('data: '.length)))).toBe(true)
    disk.heal()
  })

  it('the console lines', async () => {
    const logDir = await tempDir()
    const logFile = join(logDir, '.sendbox', 'messages.jsonl')
    const said: string[] = []
    const local = faultyFs()
    const log = await openMessageLog({ file: logFile, fs: local.fs, warn: (m) => said.push(m) })
    local.fail('ENOSPC')
    await log.append(makeRecord()).catch(() => {})
    local.heal()
    await log.append(makeRecord())
    await rm(join(logDir, '.sendbox'), { recursive: true })
    await log.append(makeRecord())
    await log.close()
    await rm(logDir, { recursive: true, force: true })
    const lines = [examples[1]!.body, examples[2]!.body].map((line) =>
      line.replace('[warn] [sendbox] ', '').replaceAll('/repo/.sendbox/messages.jsonl', logFile),
    )
    expect(said).toHaveLength(3) // failed, written again, removed
    expect(said[0]).toBe(lines[0])
    expect(said[1]).toBe(`The message log ${logFile} is written again.`)
    expect(said[2]).toBe(lines[1])
  })
})
