import type { MessageReading, MessageRecord, ReadRecord } from '../store/types.js'
import { codesIn } from './codes.js'
import { messageLinks } from './links.js'

/**
 * A message's links and codes (docs/testing.md#what-a-record-carries), from its HTML and text part. Pure; about 0.1 ms
 * for a 4 KB receipt (the HTML parse is most of it), which is why sends do not pay it: a record
 * is read when it leaves sendbox, and the reading is kept (`createMessageReader`).
 *
 * @example
 * readingOf(record) // { links: [{ href: 'https://acme.test/reset?t=1', text: 'Reset your password' }], codes: [] }
 */
export function readingOf(record: Pick<MessageRecord, 'html' | 'text'>): MessageReading {
  return {
    links: messageLinks(record.html ?? '', record.text ?? ''),
    codes: codesIn(record.text ?? ''),
  }
}

/** Reads records as they leave sendbox, each message's reading computed once. */
export interface MessageReader {
  /** The reading of a record (cached by message id while its HTML and text stay the same). */
  of(record: MessageRecord): MessageReading
  /** The record with its `links` and `codes`, a new object. */
  read(record: MessageRecord): ReadRecord
}

/** How many readings are kept; the oldest-used go first. Each is small (its links and codes). */
const KEEP = 2000

/**
 * The reader a sandbox's context holds. A record is a new object after each delivery step, with
 * the same `html` and `text` strings: the cache is keyed by id and checked by identity of those.
 *
 * @example
 * const reader = createMessageReader()
 * reader.read(record).codes // ['482913']
 */
export function createMessageReader(keep = KEEP): MessageReader {
  const cache = new Map<string, { html: string; text: string; reading: MessageReading }>()
  const of = (record: MessageRecord): MessageReading => {
    const hit = cache.get(record.id)
    if (hit && hit.html === record.html && hit.text === record.text) {
      cache.delete(record.id)
      cache.set(record.id, hit)
      return hit.reading
    }
    const reading = readingOf(record)
    cache.set(record.id, { html: record.html, text: record.text, reading })
    if (cache.size > keep) cache.delete(cache.keys().next().value as string)
    return reading
  }
  return {
    of,
    read: (record) => {
      const { links, codes } = of(record)
      // Copies: a caller that edits its record must not change what the next one reads.
      return { ...record, links: links.map((link) => ({ ...link })), codes: [...codes] }
    },
  }
}
