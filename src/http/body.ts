import type { Readable } from 'node:stream'
import type { H3Event } from 'h3'
import { formatBytes } from '../lib/bytes.js'
import { jsonErrorOffset, lineColumn } from '../lib/json.js'
import { apiError } from './errors.js'

/** Steps 2 and 3 of the send checks: media type, size, then JSON syntax. */

const JSON_TYPE = /^application\/json\s*(;|$)/i

export function assertJsonContentType(event: H3Event): void {
  const type = event.req.headers.get('content-type')
  if (!type || !JSON_TYPE.test(type.trim())) {
    throw apiError(
      415,
      'unsupported_media_type',
      `Send the body as JSON with "Content-Type: application/json" (got ${type ? JSON.stringify(type) : 'no Content-Type'}).`,
    )
  }
}

function tooLarge(limit: number) {
  return apiError(
    413,
    'payload_too_large',
    `The body is larger than the ${formatBytes(limit)} limit; send less, or raise it with --max-body.`,
  )
}

/**
 * A JSON body, checked in the send's order: media type (415), size (413), syntax and depth (400).
 * Every route that takes JSON reads it here, so none can be fed a form or a beacon.
 *
 * @example const fields = await readJsonBody(event, ctx.config.maxBody)
 */
export async function readJsonBody(event: H3Event, limit: number): Promise<unknown> {
  assertJsonContentType(event)
  return parseJsonBody(await readBodyText(event, limit))
}

/** Reads the body as text, refusing more than `limit` bytes without buffering them. */
export async function readBodyText(event: H3Event, limit: number): Promise<string> {
  const declared = Number(event.req.headers.get('content-length'))
  if (declared > limit) throw tooLarge(limit)
  // On Node, read the IncomingMessage itself, by its events: a web stream or an async
  // iterator around it costs a measurable share of a send.
  const req = event.runtime?.node?.req
  if (req) return readNodeBody(req, limit)
  const body = event.req.body
  if (!body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(limit)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size).toString('utf8')
}

function readNodeBody(req: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        // Drain the rest so the 413 can still be answered on this connection.
        req.resume()
        reject(tooLarge(limit))
      } else chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(
        chunks.length === 1
          ? chunks[0]!.toString('utf8')
          : Buffer.concat(chunks, size).toString('utf8'),
      )
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
    }
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
  })
}

/**
 * How deep arrays and objects may nest in any JSON body. Far beyond any real template
 * variables, far below what recursive code (validation, rendering, serialising) survives.
 */
export const MAX_JSON_DEPTH = 64

/**
 * The offset of the first `[` or `{` that opens level `limit + 1`, or -1 when the text nests no
 * deeper than `limit`. A scan of the raw text (brackets inside strings do not count), with no
 * recursion and before JSON.parse, so a deep body is refused before anything recursive sees it.
 *
 * @example jsonDepthExceeded('[[1]]', 1)    // 1
 * @example jsonDepthExceeded('["[[["]', 1)  // -1
 */
export function jsonDepthExceeded(text: string, limit = MAX_JSON_DEPTH): number {
  // Fewer characters than the limit cannot nest deeper than it.
  if (text.length <= limit) return -1
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return i
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--
  }
  return -1
}

const hexAt = (text: string, at: number) =>
  /^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4)) ? Number.parseInt(text.slice(at, at + 4), 16) : -1
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * The offset of the first `\uXXXX` escape that is half of a UTF-16 pair without its other half
 * (`"\ud800"`), or -1. Such a string is valid JSON but not text (RFC 8259, 8.2): the log could
 * keep it, PostgreSQL refuses it (a 500 there), and no mail client shows it. A scan of the raw
 * text, skipped when it holds no escape at all.
 *
 * @example loneSurrogateAt('{"a":"\\ud800"}')         // 6
 * @example loneSurrogateAt('{"a":"\\ud83d\\ude00"}') // -1
 */
export function loneSurrogateAt(text: string): number {
  if (!text.includes('\\u')) return -1
  let inString = false
  let highAt = -1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!inString) {
      if (c === 34 /* " */) inString = true
      continue
    }
    const unit = c === 92 /* \ */ && text[i + 1] === 'u' ? hexAt(text, i + 2) : -1
    if (highAt !== -1 && !isLow(unit)) return highAt
    if (isLow(unit) && highAt === -1) return i
    highAt = isHigh(unit) ? i : -1
    if (c === 92) i += unit === -1 ? 1 : 5
    else if (c === 34) inString = false
  }
  return highAt
}

export function parseJsonBody(text: string): unknown {
  const lone = loneSurrogateAt(text)
  if (lone !== -1)
    throw invalidJsonAt(
      text,
      lone,
      (line, column) =>
        `The body holds ${text.slice(lone, lone + 6)} at line ${line}, column ${column} (position ${lone}): half of a UTF-16 surrogate pair without its other half, which is not text. Send the whole character (e.g. "\\ud83d\\ude00"), or the character itself.`,
    )
  const deep = jsonDepthExceeded(text)
  if (deep !== -1)
    throw invalidJsonAt(
      text,
      deep,
      (line, column) =>
        `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (level ${MAX_JSON_DEPTH + 1} opens at line ${line}, column ${column}, position ${deep}); sendbox accepts at most ${MAX_JSON_DEPTH}.`,
      { limit: MAX_JSON_DEPTH },
    )
  try {
    return JSON.parse(text)
  } catch {
    if (text.trim() === '')
      throw apiError(400, 'invalid_json', 'The body is empty; send a JSON object (position 0).', {
        details: [{ position: 0, line: 1, column: 1 }],
      })
    const position = jsonErrorOffset(text)
    const found =
      position >= text.length
        ? 'the body ends too early'
        : `unexpected ${JSON.stringify(text[position])}`
    throw invalidJsonAt(
      text,
      position,
      (line, column) =>
        `The body is not valid JSON: ${found} at line ${line}, column ${column} (position ${position}).`,
    )
  }
}

/**
 * The `400 invalid_json` for what is wrong at `position` of the body: its line and column, for
 * the message `describe` writes and for the details.
 */
function invalidJsonAt(
  text: string,
  position: number,
  describe: (line: number, column: number) => string,
  extra: { limit?: number } = {},
) {
  const { line, column } = lineColumn(text, position)
  return apiError(400, 'invalid_json', describe(line, column), {
    details: [{ position, line, column, ...extra }],
  })
}
