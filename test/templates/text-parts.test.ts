import { readFileSync } from 'node:fs'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createTextParts, type TextParts, toPlainText } from '../../src/templates/index.js'
import { tempDir } from '../helpers/sandbox.js'
import { ROOT } from '../helpers/cli.js'

/** The worker's bundle: npm run build makes it. */
const WORKER = join(ROOT, 'dist/sendbox-text-worker.js')

/**
 * The text parts of overlapping sends go to a worker thread (the built dist/sendbox-text-worker.js)
 * and come back the same bytes as converted here; a send alone never waits on a thread.
 */
const samples = Object.values(
  JSON.parse(readFileSync(join(import.meta.dirname, '../golden/html-samples.json'), 'utf8')),
) as string[]

/**
 * A worker script in a folder of its own that says it is ready, as text-worker.ts does, and
 * handles each message with `onMessage` (JavaScript source of a function).
 */
async function fakeWorker(onMessage: string) {
  const dir = await tempDir()
  const file = join(dir, 'worker.mjs')
  await writeFile(
    file,
    `import { parentPort } from 'node:worker_threads'\nparentPort.on('message', ${onMessage})\nparentPort.postMessage('ready')\n`,
  )
  return { file, remove: () => rm(dir, { recursive: true, force: true }) }
}

let texts: TextParts | undefined
afterEach(async () => {
  await texts?.close()
  texts = undefined
})

describe('text parts', () => {
  it('converts here when one send is under way, with no worker started', async () => {
    texts = createTextParts(WORKER)
    const done = texts.begin()
    expect(texts.of('<p>Hello <b>Ada</b></p>')).toBe('Hello Ada')
    done()
    expect(await texts.ready()).toBe(false)
  })

  it('hands overlapping sends to the worker, which answers the same text', async () => {
    texts = createTextParts(WORKER)
    const ends = [texts.begin(), texts.begin()]
    // The first starts the worker and is converted here while it loads.
    expect(typeof texts.of(samples[0]!)).toBe('string')
    expect(await texts.ready()).toBe(true)
    const answers = samples.map((html) => texts!.of(html))
    for (const answer of answers) expect(answer).toBeInstanceOf(Promise)
    expect(await Promise.all(answers)).toEqual(samples.map(toPlainText))
    for (const end of ends) end()
  })

  it('posts the jobs of one turn to the worker as one message', async () => {
    // A worker that answers each job with the size of the message it came in.
    const worker = await fakeWorker(
      "(jobs) => { for (const { id } of jobs) parentPort.postMessage({ id, text: 'one of ' + jobs.length }) }",
    )
    texts = createTextParts(worker.file)
    texts.begin()
    texts.begin()
    expect(texts.of('<p>start</p>')).toBe('start')
    expect(await texts.ready()).toBe(true)
    const jobs = [texts.of('<p>a</p>'), texts.of('<p>b</p>'), texts.of('<p>c</p>')]
    expect(await Promise.all(jobs)).toEqual(['one of 3', 'one of 3', 'one of 3'])
    expect(await texts.of('<p>next turn</p>')).toBe('one of 1')
    await worker.remove()
  })

  it('converts here what a worker that died held, and gives up on workers after three', async () => {
    // A worker that says it is ready, then exits at its first job.
    const worker = await fakeWorker('() => process.exit(3)')
    texts = createTextParts(worker.file)
    texts.begin()
    texts.begin()
    for (let failure = 0; failure < 3; failure++) {
      expect(typeof texts.of('<p>start</p>')).toBe('string')
      expect(await texts.ready()).toBe(true)
      const jobs = [texts.of('<p>one</p>'), texts.of('<h1>two</h1>')]
      expect(jobs[0]).toBeInstanceOf(Promise)
      expect(await Promise.all(jobs)).toEqual(['one', 'two'])
    }
    // Three workers died: no fourth is started.
    expect(texts.of('<p>here</p>')).toBe('here')
    expect(await texts.ready()).toBe(false)
    await worker.remove()
  })
})

describe('an idle worker', () => {
  it('stops, and the next overlapping sends start another', async () => {
    texts = createTextParts(WORKER)
    texts.begin()
    texts.begin()
    for (let start = 0; start < 4; start++) {
      expect(texts.of('<p>start</p>')).toBe('start')
      expect(await texts.ready()).toBe(true)
      expect(await texts.of('<p>on the worker</p>')).toBe('on the worker')
      // Idle now: it stops by itself (four idle stops are no failures: a fourth one starts).
      await texts.gone()
    }
  })
})
