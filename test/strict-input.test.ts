import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, startTestSandbox, type TestSandbox } from './helpers/sandbox.js'

/**
 * Every JSON body of the inspector is checked the way POST /messages is: not an object, wrong
 * types and unknown keys (with "did you mean") are 422 validation_failed listing every problem,
 * and null is a value, not "absent". A query parameter with a value outside its enum is 400
 * invalid_parameter naming it, never served as if it were absent.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ 'welcome.liquid': '<p>Hi {{ name | default: "you" }}</p>' })
})
afterAll(() => sandbox?.close())

const post = (path: string, body: string) =>
  fetch(`${sandbox.url}/_sandbox/api${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })

async function problems(
  path: string,
  body: string,
): Promise<Array<{ field: string; code: string; message: string }>> {
  const response = await post(path, body)
  const error = await errorOf(response)
  expect([response.status, error.code], `${path} ${body}`).toEqual([422, 'validation_failed'])
  return error.details as Array<{ field: string; code: string; message: string }>
}

const notObjects = ['null', '"abc"', '[null,null]', '5', 'true']

describe('variables bodies: POST /templates/:slug/render and /checks', () => {
  for (const path of ['/templates/welcome/render', '/templates/welcome/checks']) {
    it(`${path}: a body that is not an object is 422`, async () => {
      for (const body of notObjects)
        expect(await problems(path, body)).toEqual([
          expect.objectContaining({ field: '', code: 'invalid_type' }),
        ])
    })

    it(`${path}: a misspelt key is 422 unknown_field with a did-you-mean, not silently ignored`, async () => {
      const details = await problems(path, '{"vars":{}}')
      expect(details).toEqual([expect.objectContaining({ field: 'vars', code: 'unknown_field' })])
      expect(details[0]!.message).toContain('Did you mean "variables"?')
    })

    it(`${path}: null is not absent, and every problem is listed at once`, async () => {
      expect(await problems(path, '{"variables":null}')).toEqual([
        expect.objectContaining({ field: 'variables', code: 'invalid_type' }),
      ])
      const both = await problems(path, '{"variables":5,"extra":1}')
      expect(both.map((p) => p.field).sort()).toEqual(['extra', 'variables'])
    })

    it(`${path}: {} and { variables: {} } still render`, async () => {
      expect((await post(path, '{}')).status).toBe(200)
      expect((await post(path, '{"variables":{"name":"Ada"}}')).status).toBe(200)
    })
  }
})

describe('POST /previews', () => {
  it('checks the template and variables, and nothing else is allowed', async () => {
    for (const body of notObjects)
      expect(await problems('/previews', body)).toEqual([
        expect.objectContaining({ field: '', code: 'invalid_type' }),
      ])
    expect(await problems('/previews', '{"template":""}')).toEqual([
      expect.objectContaining({ field: 'template' }),
    ])
    expect(await problems('/previews', '{"template":"welcome","variables":null}')).toEqual([
      expect.objectContaining({ field: 'variables', code: 'invalid_type' }),
    ])
    const details = await problems('/previews', '{"templat":"welcome"}')
    expect(details).toContainEqual(
      expect.objectContaining({
        field: 'templat',
        code: 'unknown_field',
        message: expect.stringContaining('Did you mean "template"?'),
      }),
    )
    expect(details).toContainEqual(expect.objectContaining({ field: 'template', code: 'required' }))
  })
})

describe('POST /templates/:slug/fixtures', () => {
  it('name, variables and overwrite are checked, and unknown keys refused', async () => {
    const path = '/templates/welcome/fixtures'
    for (const body of notObjects)
      expect(await problems(path, body)).toEqual([
        expect.objectContaining({ field: '', code: 'invalid_type' }),
      ])
    expect(await problems(path, '{"name":"x","variables":{},"overwrite":null}')).toEqual([
      expect.objectContaining({ field: 'overwrite', code: 'invalid_type' }),
    ])
    expect(await problems(path, '{"name":"x","variables":{},"overwrite":"yes"}')).toEqual([
      expect.objectContaining({ field: 'overwrite', code: 'invalid_type' }),
    ])
    expect(await problems(path, '{"name":"x","variables":{},"overwrit":true}')).toEqual([
      expect.objectContaining({
        field: 'overwrit',
        code: 'unknown_field',
        message: expect.stringContaining('Did you mean "overwrite"?'),
      }),
    ])
    expect(await problems(path, '{"name":"","variables":{}}')).toEqual([
      expect.objectContaining({ field: 'name' }),
    ])
  })
})

describe('POST /faults', () => {
  it('null is not "absent" for match, count or retryAfter', async () => {
    for (const field of ['match', 'count', 'retryAfter']) {
      expect(
        await problems('/faults', JSON.stringify({ status: 503, [field]: null })),
        field,
      ).toEqual([expect.objectContaining({ field, code: 'invalid_type' })])
    }
    expect(
      await problems('/faults', JSON.stringify({ status: 503, match: { template: null } })),
    ).toEqual([expect.objectContaining({ field: 'match.template', code: 'invalid_type' })])
  })

  it('a misspelt key gets a did-you-mean; every problem is listed at once', async () => {
    const details = await problems(
      '/faults',
      JSON.stringify({ status: 418, count: 0, retryAftr: 2 }),
    )
    expect(details.map((p) => p.field).sort()).toEqual(['count', 'retryAftr', 'status'])
    expect(details.find((p) => p.field === 'retryAftr')!.message).toContain(
      'Did you mean "retryAfter"?',
    )
  })

  it('sandbox.fail() takes the same rules', async () => {
    await expect(sandbox.fail({ status: 503, count: null } as never)).rejects.toThrow(/count/)
  })
})

describe('query parameters with a fixed set of values', () => {
  const sent = async () => {
    const response = await sandbox.send({
      template: 'welcome',
      from: 'a@b.test',
      to: 'c@d.test',
      subject: 'Hi',
    })
    return response.headers.get('location')!
  }

  it.each([
    ['/_sandbox/api/templates/welcome/preview?images=AAA', 'images'],
    ['/_sandbox/api/templates/welcome/preview?scheme=blue', 'scheme'],
    ['/_sandbox/api/messages?fields=all', 'fields'],
    ['/_sandbox/api/templates/welcome/render?soft=yes', 'soft'],
    ['/_sandbox/api/messages?limit=1e1', 'limit'],
    ['/_sandbox/api/messages?offset=0x10', 'offset'],
    ['/_sandbox/api/messages?offset=9007199254740992', 'offset'],
    ['/_sandbox/api/messages/wait?timeout=%201', 'timeout'],
  ])('%s is 400 invalid_parameter naming %s', async (path, parameter) => {
    const response = await fetch(`${sandbox.url}${path}`)
    const error = await errorOf(response)
    expect([response.status, error.code]).toEqual([400, 'invalid_parameter'])
    expect(error.details).toEqual([expect.objectContaining({ parameter })])
  })

  it("a message's HTML: ?images= and ?scheme= take only their values", async () => {
    const location = await sent()
    for (const query of ['images=AAA', 'scheme=', 'images=']) {
      const response = await fetch(`${sandbox.url}${location}/html?${query}`)
      expect(response.status, query).toBe(400)
    }
    for (const query of ['images=off', 'images=on', 'scheme=dark', 'scheme=light'])
      expect((await fetch(`${sandbox.url}${location}/html?${query}`)).status, query).toBe(200)
  })
})

describe('a query parameter an operation does not take', () => {
  it.each([
    ['/_sandbox/api/messages?templte=welcome', 'templte', 'did you mean "template"?'],
    ['/_sandbox/api/events?field=summary', 'field', 'did you mean "fields"?'],
    ['/_sandbox/api/webhooks?x-unknown=42', 'x-unknown', 'known: message, type, status, limit'],
    ['/_sandbox/api/health?verbose=1', 'verbose', 'it takes none'],
    ['/templates?limit=5', 'limit', 'it takes none'],
  ])('%s is 400 invalid_parameter naming %s', async (path, parameter, hint) => {
    const response = await fetch(`${sandbox.url}${path}`, {
      headers: { authorization: 'token sandbox_test' },
    })
    const error = await errorOf(response)
    expect([response.status, error.code]).toEqual([400, 'invalid_parameter'])
    expect(error.details).toEqual([expect.objectContaining({ parameter })])
    expect(error.message).toContain(`The parameter "${parameter}" is not one this operation knows`)
    expect(error.message).toContain(hint)
  })

  it('every problem of the query is listed, the first one told', async () => {
    const response = await fetch(`${sandbox.url}/_sandbox/api/messages?limit=0&statuz=sent`)
    const error = await errorOf(response)
    expect(error.details).toEqual([
      expect.objectContaining({ parameter: 'limit' }),
      expect.objectContaining({ parameter: 'statuz' }),
    ])
    expect(error.message).toMatch(/^The parameter "limit" must be a whole number/)
  })

  it('a parameter given with no value is refused where empty is no value it takes', async () => {
    for (const path of [
      '/_sandbox/api/templates/welcome/render?case=',
      '/_sandbox/api/messages?since=',
      '/_sandbox/api/messages?status=',
    ]) {
      const response = await fetch(`${sandbox.url}${path}`)
      expect([response.status, (await errorOf(response)).code], path).toEqual([
        400,
        'invalid_parameter',
      ])
    }
    // Free text: empty filters nothing, as documented.
    expect((await fetch(`${sandbox.url}/_sandbox/api/messages?to=`)).status).toBe(200)
  })
})
