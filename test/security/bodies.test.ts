import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonDepthExceeded, MAX_JSON_DEPTH } from '../../src/http/body.js'
import { codeOf, raw } from '../helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/**
 * Every JSON body: sent as application/json (415 otherwise, as POST /messages always did), and
 * no deeper than MAX_JSON_DEPTH levels (a 400 naming the limit, never a 500).
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'welcome.liquid': 'Hi {{ name }}' })
})
afterAll(() => sandbox?.close())

/** Arrays nested `depth` levels deep around `inner`. */
const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`
const send = (variables: string) =>
  `{"template":"welcome","from":"a@acme.test","to":"b@example.com","subject":"Hi","templateVariables":{"name":"Ada","deep":${variables}}}`

/** Every route that takes a JSON body, with a valid body for it and how to nest that body `depth` deep. */
const JSON_POSTS: Array<{ path: string; body: string; deep: (depth: number) => string }> = [
  { path: '/messages', body: send('1'), deep: (d) => send(nested(d - 2)) },
  {
    path: '/_sandbox/api/faults',
    body: '{"status":503}',
    deep: (d) => `{"status":503,"match":${nested(d - 1)}}`,
  },
  {
    path: '/_sandbox/api/previews',
    body: '{"template":"welcome","variables":{}}',
    deep: (d) => `{"template":"welcome","variables":{"x":${nested(d - 2)}}}`,
  },
  {
    path: '/_sandbox/api/templates/welcome/render',
    body: '{"variables":{}}',
    deep: (d) => `{"variables":{"x":${nested(d - 2)}}}`,
  },
  {
    path: '/_sandbox/api/templates/welcome/checks',
    body: '{"variables":{}}',
    deep: (d) => `{"variables":{"x":${nested(d - 2)}}}`,
  },
  {
    path: '/_sandbox/api/templates/welcome/fixtures',
    body: '{"name":"ok","variables":{},"overwrite":true}',
    deep: (d) => `{"name":"deep","variables":{"x":${nested(d - 2)}}}`,
  },
]

const post = (path: string, body: string, type?: string) =>
  raw(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, ...(type ? { 'content-type': type } : {}) },
    body,
  })

describe('every JSON POST requires Content-Type: application/json', () => {
  it.each(JSON_POSTS)('$path', async ({ path, body }) => {
    for (const type of [
      undefined,
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
    ]) {
      const response = await post(path, body, type)
      expect(response.status, `${type}`).toBe(415)
      expect(codeOf(response)).toBe('unsupported_media_type')
    }
    const ok = await post(path, body, 'application/json; charset=utf-8')
    expect(ok.status).toBeLessThan(300)
    await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })
  })
})

describe(`JSON nested more than ${MAX_JSON_DEPTH} levels`, () => {
  it.each(JSON_POSTS)(
    '$path: level 65 is 400 invalid_json naming the limit; 64 is parsed',
    async ({ path, deep }) => {
      // At the limit the body parses (a fault's match that deep is still the wrong shape: 422).
      const atLimit = await post(path, deep(MAX_JSON_DEPTH), 'application/json')
      expect(atLimit.status, atLimit.body).toBe(
        path.endsWith('/faults')
          ? 422
          : path.endsWith('/fixtures') || path.endsWith('/previews') || path === '/messages'
            ? 201
            : 200,
      )
      await fetch(`${sandbox.url}/_sandbox/api/faults`, { method: 'DELETE' })

      const over = await post(path, deep(MAX_JSON_DEPTH + 1), 'application/json')
      expect(over.status).toBe(400)
      expect(codeOf(over)).toBe('invalid_json')
      expect(over.body).toContain(`at most ${MAX_JSON_DEPTH}`)
      expect(
        (over.json as { error: { details: Array<{ limit: number }> } }).error.details[0]!.limit,
      ).toBe(MAX_JSON_DEPTH)
    },
  )

  it.each(JSON_POSTS)(
    '$path: 4000 levels (the 8 KB attack body) is a 400, never a 500',
    async ({ path, deep }) => {
      const response = await post(path, deep(4000), 'application/json')
      expect(response.status).toBe(400)
      expect(codeOf(response)).toBe('invalid_json')
    },
  )

  it('brackets inside strings do not count; escaped quotes do not end a string', () => {
    expect(jsonDepthExceeded(`{"a":"${'['.repeat(200)}"}`, 2)).toBe(-1)
    expect(jsonDepthExceeded(`{"a":"\\"${'['.repeat(200)}"}`, 2)).toBe(-1)
    expect(jsonDepthExceeded(`{"a":"\\\\",${'['.repeat(2)}]]}`, 2)).toBe(11)
    expect(jsonDepthExceeded('[[1]]', 1)).toBe(1)
    expect(jsonDepthExceeded(nested(64), 64)).toBe(-1)
    expect(jsonDepthExceeded(nested(65), 64)).toBe(64)
  })
})

// A lone half of a UTF-16 surrogate pair ("\ud800") is valid JSON but not text: PostgreSQL's
// store refused it with a 500. Every store and every route now answers a 400 that says where.
describe('JSON strings holding half of a surrogate pair', () => {
  it.each(JSON_POSTS)(
    '$path: a lone "\\ud800" is 400 invalid_json at its position',
    async ({ path, body }) => {
      // The body's first key gets the lone half in front: `{"\ud800template":…}`.
      const withLone = body.replace('"', '"\\ud800')
      const response = await post(path, withLone, 'application/json')
      expect(response.status, response.body).toBe(400)
      expect(codeOf(response)).toBe('invalid_json')
      expect(response.body).toContain('\\\\ud800 at line 1, column 3 (position 2)')
    },
  )

  it('finds a lone half anywhere in a string, and passes whole pairs and escaped backslashes', async () => {
    const { loneSurrogateAt } = await import('../../src/http/body.js')
    expect(loneSurrogateAt('{"a":"\\ud800"}')).toBe(6)
    expect(loneSurrogateAt('{"a":"x\\udc00"}')).toBe(7)
    expect(loneSurrogateAt('{"a":"\\ud800\\n"}')).toBe(6)
    expect(loneSurrogateAt('{"a":"\\ud800\\ud800\\udc00"}')).toBe(6)
    expect(loneSurrogateAt('{"a":"\\ud83d\\ude00","b":"\\u00e9"}')).toBe(-1)
    expect(loneSurrogateAt('{"a":"\\\\ud800"}')).toBe(-1)
    expect(loneSurrogateAt('{"\\uD800":1}')).toBe(2)
    expect(loneSurrogateAt('{"a":"plain"}')).toBe(-1)
  })

  it('a whole pair is sent and read back as the character', async () => {
    const sent = await post('/messages', send('"\\ud83d\\ude00"'), 'application/json')
    expect(sent.status, sent.body).toBe(201)
  })
})
