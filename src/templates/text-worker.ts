/**
 * The worker thread of `createTextParts` (text-parts.ts): turns HTML into a message's text part
 * with the same converter as the main thread (plain-text.ts): the jobs of a turn in one message,
 * each answered as soon as it is converted. Bundled as
 * dist/sendbox-text-worker.js (scripts/bundle.js).
 */
import { parentPort } from 'node:worker_threads'
import { toPlainText, warmPlainText } from './plain-text.js'

/** A job: the HTML of one message; the answer carries its `id` back with the text or the error. */
export interface TextJob {
  id: number
  html: string
}

export type TextAnswer = { id: number; text: string } | { id: number; error: string }

/** One job's answer: its text, or why the converter threw. */
function answerOf({ id, html }: TextJob): TextAnswer {
  try {
    return { id, text: toPlainText(html) }
  } catch (error) {
    return { id, error: String(error) }
  }
}

/**
 * Answers each job of a message on `port` (the jobs of one turn of the main thread's event loop)
 * in a message of its own, as soon as it is converted, so a send waits for its own text, not a
 * batch's. Says `ready` once the converter is loaded, so the main thread sends nothing to a
 * worker that would keep it waiting for html-to-text to load.
 *
 * @example
 * serveTextJobs(parentPort)
 */
export function serveTextJobs(port: NonNullable<typeof parentPort>): void {
  port.on('message', (jobs: TextJob[]) => {
    for (const job of jobs) port.postMessage(answerOf(job))
  })
  warmPlainText()
  port.postMessage('ready')
}

if (parentPort) serveTextJobs(parentPort)
