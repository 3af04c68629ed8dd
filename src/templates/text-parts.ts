import { existsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { toPlainText } from './plain-text.js'
import type { TextAnswer, TextJob } from './text-worker.js'

/**
 * The text parts of sends, on a second core when sends overlap. Turning a message's HTML into
 * text is about a third of a send's CPU (html-to-text and its parser, `npm run bench`'s table):
 * under load (sends under way together) the main thread hands it to one worker thread and goes
 * on with the next request, and a send is still stored, whole, before its answer. A send alone
 * converts its HTML here, as before: no thread to wake for it, no worker started until sends
 * overlap. The worker runs the same converter (text-worker.ts): the text is the same bytes
 * either way (test/golden).
 */
export interface TextParts {
  /** Marks a send under way until the function it returns is called. */
  begin(): () => void
  /** The text part of `html`: here, or on the worker while other sends are under way. */
  of(html: string): string | Promise<string>
  /** Whether a worker is up and taking text parts now (a test waits on it, after `of` started one). */
  ready(): Promise<boolean>
  /** Resolves once no worker is up: at once, or when the one up stops (idle, crashed, closed). */
  gone(): Promise<void>
  /** Stops the worker; later text parts are converted here. */
  close(): Promise<void>
}

/**
 * A worker with no job for this long stops (checked as often): an idle sandbox gives its memory
 * back (the worker's heap and html-to-text: a server holding 5000 receipts after a 32-connection
 * fill was 180 MB RSS with it kept, 164 MB without a worker; noisy machine, one run each).
 */
const IDLE_MS = 250

/** After this many worker failures (a crash, an exit), every text part is converted here. */
const GIVE_UP_AFTER = 3

interface Pending {
  html: string
  resolve(text: string): void
  reject(error: unknown): void
}

/** Converts here: what a job does when there is no worker to do it, or it failed. */
function settleHere({ html, resolve, reject }: Pending): void {
  try {
    resolve(toPlainText(html))
  } catch (error) {
    reject(error)
  }
}

interface WorkerState {
  worker: Worker | undefined
  ready: boolean
  underWay: number
  /** Also what the idle check compares between two looks: no job handed over in between. */
  nextId: number
  failures: number
  closed: boolean
  /** Jobs handed over in this turn of the event loop, not yet posted (`handOver`). */
  outbox: TextJob[]
}

/**
 * Starts the worker at `file`: its answers settle `pending` jobs; once it is gone (crashed,
 * exited, terminated) `lost` runs. It never keeps the process up.
 */
function startWorker(
  file: string,
  state: WorkerState,
  pending: Map<number, Pending>,
  on: { ready(worker: Worker): void; lost(worker: Worker, idle: boolean): void },
): void {
  const worker = new Worker(file)
  state.worker = worker
  worker.unref()
  let seen = state.nextId
  const stopping = { idle: false }
  const idle = setInterval(() => {
    if (state.ready && state.nextId === seen && pending.size === 0) {
      stopping.idle = true
      void worker.terminate()
    }
    seen = state.nextId
  }, IDLE_MS).unref()
  worker.once('exit', () => clearInterval(idle))
  worker.on('message', (answer: TextAnswer | 'ready') => {
    if (answer === 'ready') return on.ready(worker)
    const job = pending.get(answer.id)
    if (!job) return
    pending.delete(answer.id)
    // The converter threw there: here it throws the same way, through the send's own errors.
    if ('error' in answer) settleHere(job)
    else job.resolve(answer.text)
  })
  worker.on('error', () => on.lost(worker, false))
  // An idle stop is no failure; any other end is.
  worker.on('exit', () => on.lost(worker, stopping.idle))
}

/** Promises that one `tell` resolves, all together. */
function waitersOf<T>(): { wait(): Promise<T>; tell(value: T): void } {
  const waiting = new Set<(value: T) => void>()
  return {
    wait: () => new Promise<T>((resolve) => waiting.add(resolve)),
    tell(value) {
      for (const resolve of waiting) resolve(value)
      waiting.clear()
    },
  }
}

/**
 * Queues `job` for the worker; the jobs of one turn of the event loop go as one message once the
 * turn's I/O callbacks have run (`setImmediate`). A message per job woke the worker once per
 * send: under 32 connections on 2 busy cores `postMessage` was 15% of the main thread's profile
 * (the thread it wakes takes the core). Each answer still comes back as soon as it is converted:
 * a batch's answers in one message came in bursts, and webhook deliveries fell behind the sends
 * (0.86 to 0.96 received per send during a 5-second round against 1.14 to 1.38 before).
 */
function handOver(state: WorkerState, job: TextJob): void {
  if (state.outbox.push(job) > 1) return
  setImmediate(() => {
    const jobs = state.outbox
    state.outbox = []
    // A worker lost meanwhile had these converted here already (`forget`).
    if (jobs.length > 0) state.worker?.postMessage(jobs)
  })
}

/** After the worker is gone: what it held is converted here (a send never waits on a worker that is gone). */
function forget(state: WorkerState, pending: Map<number, Pending>, idle: boolean): void {
  state.worker = undefined
  state.ready = false
  state.outbox = []
  if (!state.closed && !idle) state.failures++
  for (const job of pending.values()) settleHere(job)
  pending.clear()
}

/**
 * One sandbox's text parts (its context holds them; `close` with it), with the worker's bundle
 * at `workerFile`; without that file (src run before a build), every text part is converted here.
 *
 * @example
 * const texts = createTextParts('dist/sendbox-text-worker.js')
 * const done = texts.begin()
 * const text = await texts.of('<p>Hello</p>') // 'Hello'
 * done()
 */
export function createTextParts(workerFile: string): TextParts {
  const pending = new Map<number, Pending>()
  // Who waits for the worker starting now to be ready (or lost), and for it to be gone.
  const readiness = waitersOf<boolean>()
  const going = waitersOf<void>()
  const state: WorkerState = {
    worker: undefined,
    ready: false,
    underWay: 0,
    nextId: 0,
    failures: 0,
    closed: false,
    outbox: [],
  }
  const usable = () => !state.closed && state.failures < GIVE_UP_AFTER && existsSync(workerFile)
  const ready = (worker: Worker) => {
    state.ready = state.worker === worker
    readiness.tell(state.ready)
  }
  const lost = (worker: Worker, idle: boolean) => {
    if (state.worker !== worker) return
    forget(state, pending, idle)
    readiness.tell(false)
    going.tell()
  }
  return {
    begin() {
      state.underWay++
      let ended = false
      return () => {
        if (!ended) state.underWay--
        ended = true
      }
    },
    of(html) {
      if (state.underWay < 2 || state.closed) return toPlainText(html)
      if (!state.worker) {
        if (usable()) startWorker(workerFile, state, pending, { ready, lost })
        return toPlainText(html)
      }
      if (!state.ready) return toPlainText(html)
      const id = state.nextId++
      return new Promise<string>((resolve, reject) => {
        pending.set(id, { html, resolve, reject })
        handOver(state, { id, html })
      })
    },
    ready: () => (state.ready || !state.worker ? Promise.resolve(state.ready) : readiness.wait()),
    gone: () => (state.worker ? going.wait() : Promise.resolve()),
    async close() {
      state.closed = true
      const worker = state.worker
      if (worker) await worker.terminate()
    },
  }
}
