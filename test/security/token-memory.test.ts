import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { raw } from '../helpers/http.js'
import { tempDir, writeFiles } from '../helpers/sandbox.js'

/**
 * docs/api.md#the-api: the full token is never kept. A token lives in memory for its request only: once
 * the request is answered, a heap snapshot of the server (which collects garbage first) holds
 * no string with it. The server runs in a child process, so the test's own copy of the token
 * is not in the heap searched.
 */

const SERVER = `
import { writeHeapSnapshot } from 'node:v8'
import { createInterface } from 'node:readline'
import { startSendbox } from 'sendbox'
const [templates, snapshot] = process.argv.slice(-2)
const sandbox = await startSendbox({ port: 0, memory: true, templates })
console.log(sandbox.url)
for await (const _ of createInterface({ input: process.stdin })) {
  writeHeapSnapshot(snapshot)
  console.log('snapshot')
}
`

let dir: string
let child: ChildProcess
let lines: AsyncIterator<string>
let url: string
beforeAll(async () => {
  dir = await tempDir('sendbox-token-memory-')
  await writeFiles(join(dir, 'templates'), { 'welcome.liquid': '<p>Welcome, {{ name }}!</p>' })
  child = spawn(
    process.execPath,
    ['--input-type=module', '-e', SERVER, join(dir, 'templates'), join(dir, 'heap.heapsnapshot')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  url = (await lines.next()).value as string
})
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill()
    await once(child, 'exit')
  }
  await rm(dir, { recursive: true, force: true })
})

/** The server's heap, as a snapshot file (taking one collects garbage first). */
async function heapSnapshot(): Promise<Buffer> {
  child.stdin!.write('snapshot\n')
  expect((await lines.next()).value).toBe('snapshot')
  return readFile(join(dir, 'heap.heapsnapshot'))
}

describe('a token lives only for its request', () => {
  it('after accepted and refused requests, the heap holds none of their tokens', async () => {
    const accepted = `sandbox_${randomBytes(16).toString('hex')}`
    const refused = `live_${randomBytes(16).toString('hex')}`
    for (let i = 0; i < 3; i++) {
      const ok = await raw(`${url}/templates`, { headers: { authorization: `token ${accepted}` } })
      expect(ok.status).toBe(200)
      const no = await raw(`${url}/templates`, { headers: { authorization: `token ${refused}` } })
      expect(no.status).toBe(403)
    }
    const heap = await heapSnapshot()
    // The search itself works: strings the server keeps are found.
    expect(heap.includes('sandbox_')).toBe(true)
    expect(heap.includes('Welcome, {{ name }}!')).toBe(true)
    expect(heap.includes(accepted)).toBe(false)
    expect(heap.includes(refused)).toBe(false)
  })
})
