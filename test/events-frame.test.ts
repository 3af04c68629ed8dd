import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestSandbox, tempDir, type TestSandbox } from './helpers/sandbox.js'

/** The event stream's `message` frame carries the line the log wrote (and the record's links and codes): one serialisation per record. */

let sandbox: TestSandbox
let db: string
beforeAll(async () => {
  db = join(await tempDir('sendbox-frame-'), 'messages.jsonl')
  sandbox = await startTestSandbox(
    { 'welcome.liquid': '<p>Grüße, {{ name }} — 😀</p>' },
    { memory: false, db },
  )
})
afterAll(() => sandbox?.close())
afterEach(() => {
  vi.restoreAllMocks()
})

/** Reads the raw stream until a whole `message` frame arrived; its `data:` text, as sent. */
async function messageFrame(response: Response): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  for (;;) {
    const match = /event: message\nid: [^\n]+\ndata: ([^\n]*)\n\n/.exec(text)
    if (match) {
      await reader.cancel()
      return match[1]!
    }
    const { value, done } = await reader.read()
    if (done) throw new Error(`the stream ended without a message frame: ${text}`)
    text += value
  }
}

describe('the message frame', () => {
  it('is the stored line, byte for byte, plus links and codes, and the record is serialised once for the log and the stream', async () => {
    const controller = new AbortController()
    const stream = await fetch(`${sandbox.url}/_sandbox/api/events`, { signal: controller.signal })
    const stringify = vi.spyOn(JSON, 'stringify')
    const frame = messageFrame(stream)
    const response = await sandbox.send({
      template: 'welcome',
      from: 'Acme <hello@acme.test>',
      to: 'Ada <ada@example.com>',
      subject: 'Welcome — ✓',
      templateVariables: { name: 'Ada' },
    })
    expect(response.status).toBe(201)
    const { id } = (await response.json()) as { id: string }
    const data = await frame
    controller.abort()
    const records = stringify.mock.calls.filter(
      ([value]) =>
        typeof value === 'object' && value !== null && 'html' in value && 'recipients' in value,
    )
    expect(records).toHaveLength(1)
    vi.restoreAllMocks()
    const line = (await readFile(db, 'utf8')).split('\n').find((l) => l.startsWith(`{"id":"${id}"`))
    expect(line).toBeDefined()
    // …with the reading added (docs/testing.md#what-a-record-carries), the stored part left as it was written.
    expect(data).toBe(`${line!.slice(0, -1)},"links":[],"codes":[]}`)
  })
})
