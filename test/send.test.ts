import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorOf, TOKEN, type TestSandbox } from './helpers/sandbox.js'
import { jsonOf } from './helpers/http.js'
import { onEachStore } from './helpers/stores.js'

const templates = {
  'welcome.liquid':
    '---\ndescription: Welcome\n---\n<p>Hello {{ name }}, welcome to {{ product | default: "sendbox" }}.</p>',
  'receipt.liquid':
    '{% for item in order.items %}<li>{{ item.name }}</li>{% endfor %}<p>Order {{ order.id }} for {{ customer.name }}</p>',
  'broken.liquid': 'Hello {{ name ',
  'runaway.liquid': '{% for i in (1..100000000) %}{{ i }}{% endfor %}',
  'raw.liquid': '<div>{{ snippet }}</div><div>{{ snippet | raw }}</div>',
  'welcome-back.liquid': 'Again, {{ name }}',
}

const valid = {
  template: 'welcome',
  from: 'Acme <hello@acme.test>',
  to: 'Ada Lovelace <ada@example.com>',
  subject: 'Welcome',
  templateVariables: { name: 'Ada' },
}

onEachStore((store) => {
  let sandbox: TestSandbox
  let lenient: TestSandbox
  beforeAll(async () => {
    sandbox = await store.start(templates, { maxBody: 2048 })
    lenient = await store.start(templates, { lenient: true })
  })
  afterAll(async () => {
    await sandbox?.close()
    await lenient?.close()
  })

  describe('POST /messages: success', () => {
    it('is 201 with Location and the contract body', async () => {
      const response = await sandbox.send(valid)
      expect(response.status).toBe(201)
      const body = (await response.json()) as Record<string, unknown>
      expect(body).toMatchObject({
        status: 'sent',
        sandbox: true,
        template: 'welcome',
        to: ['Ada Lovelace <ada@example.com>'],
        subject: 'Welcome',
        warnings: [],
      })
      expect(body.id).toMatch(/^msg_[0-9A-Z]{26}$/)
      expect(new Date(body.createdAt as string).toISOString()).toBe(body.createdAt)
      expect(response.headers.get('location')).toBe(`/_sandbox/api/messages/${body.id}`)
      const record = await jsonOf(fetch(`${sandbox.url}${response.headers.get('location')}`))
      expect(record).toMatchObject({
        id: body.id,
        // The 201 says sent; by the time the record is read it may have been delivered (§7).
        status: expect.stringMatching(/^(sent|delivered)$/),
        template: 'welcome',
        from: { name: 'Acme', address: 'hello@acme.test' },
        to: [{ name: 'Ada Lovelace', address: 'ada@example.com' }],
        subject: 'Welcome',
        templateVariables: { name: 'Ada' },
        html: '<p>Hello Ada, welcome to sendbox.</p>',
        text: 'Hello Ada, welcome to sendbox.',
        warnings: [],
        project: expect.stringMatching(/^[0-9a-f]{8}$/),
        tokenHint: 'sandbox_…cdef',
      })
      expect(JSON.stringify(record)).not.toContain(TOKEN)
    })

    it('accepts a bare address, an array of recipients and a charset parameter', async () => {
      const response = await sandbox.api('/messages', {
        method: 'POST',
        headers: { 'content-type': 'Application/JSON; charset=utf-8' },
        body: JSON.stringify({
          ...valid,
          from: 'hello@acme.test',
          to: ['ada@example.com', 'Bob <bob@example.com>'],
        }),
      })
      expect(response.status).toBe(201)
      expect(((await response.json()) as { to: string[] }).to).toEqual([
        'ada@example.com',
        'Bob <bob@example.com>',
      ])
    })

    it('ids are unique and sort by time', async () => {
      const ids: string[] = []
      for (let i = 0; i < 5; i++)
        ids.push(((await (await sandbox.send(valid)).json()) as { id: string }).id)
      expect(new Set(ids).size).toBe(5)
      expect([...ids].sort()).toEqual(ids)
    })

    it('warns about variables supplied but never used', async () => {
      const response = await sandbox.send({
        ...valid,
        templateVariables: { name: 'Ada', coupon: 'X' },
      })
      expect(response.status).toBe(201)
      const { warnings } = (await response.json()) as {
        warnings: Array<{ code: string; variable: string }>
      }
      expect(warnings).toEqual([
        expect.objectContaining({ code: 'unused_variable', variable: 'coupon' }),
      ])
    })

    it('escapes HTML by default and | raw opts out', async () => {
      const response = await sandbox.send({
        ...valid,
        template: 'raw',
        templateVariables: { snippet: '<b>x</b>' },
      })
      const record = await jsonOf(fetch(`${sandbox.url}${response.headers.get('location')}`))
      expect(record.html).toBe('<div>&lt;b&gt;x&lt;/b&gt;</div><div><b>x</b></div>')
    })

    it('keeps __proto__ and constructor keys inert', async () => {
      const body = `{"template":"welcome","from":"a@acme.test","to":"b@example.com","subject":"x","templateVariables":{"name":"Ada","__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}`
      const response = await sandbox.api('/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      expect(response.status).toBe(201)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      const again = await sandbox.send({ ...valid, template: 'welcome-back' })
      expect(again.status).toBe(201)
    })
  })

  describe('POST /messages: each check, in order', () => {
    it('415 unsupported_media_type for a body that is not declared JSON', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp']) {
        const response = await sandbox.api('/messages', {
          method: 'POST',
          headers: { 'content-type': type },
          body: JSON.stringify(valid),
        })
        expect(response.status).toBe(415)
        expect((await errorOf(response)).code).toBe('unsupported_media_type')
      }
      const none = await sandbox.api('/messages', {
        method: 'POST',
        body: new Blob([JSON.stringify(valid)]),
      })
      expect(none.status).toBe(415)
    })

    it('413 payload_too_large over --max-body, before JSON parsing', async () => {
      const response = await sandbox.api('/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{${' '.repeat(4096)}`,
      })
      expect(response.status).toBe(413)
      expect((await errorOf(response)).code).toBe('payload_too_large')
    })

    it('415 comes before 413', async () => {
      const response = await sandbox.api('/messages', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(4096),
      })
      expect(response.status).toBe(415)
    })

    it('400 invalid_json with the position', async () => {
      const response = await sandbox.api('/messages', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"template": "welcome",\n "to": }',
      })
      expect(response.status).toBe(400)
      const error = await errorOf(response)
      expect(error.code).toBe('invalid_json')
      expect(error.message).toMatch(/line 2, column 8/)
      expect(error.message).toMatch(/position 31/)
    })

    it('422 validation_failed lists every bad field at once', async () => {
      const response = await sandbox.send({
        template: 5,
        from: 'not an address',
        to: ['ada@example.com', 'nope', 7],
        subject: 'a\r\nBcc: x@y.z',
        templateVariables: [],
        templateVars: {},
      })
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('validation_failed')
      const fields = (error.details as Array<{ field: string; code: string }>).map(
        (d) => `${d.field}:${d.code}`,
      )
      expect(fields).toEqual(
        expect.arrayContaining([
          'template:invalid_type',
          'from:invalid_address',
          'to[1]:invalid_address',
          'to[2]:invalid_type',
          'subject:invalid_characters',
          'templateVariables:invalid_type',
          'templateVars:unknown_field',
        ]),
      )
      const unknown = (error.details as Array<{ field: string; message: string }>).find(
        (d) => d.field === 'templateVars',
      )
      expect(unknown?.message).toContain('Did you mean "templateVariables"?')
    })

    it.each([
      [{ ...valid, template: undefined }, 'template', 'required'],
      [{ ...valid, from: undefined }, 'from', 'required'],
      [{ ...valid, to: undefined }, 'to', 'required'],
      [{ ...valid, to: [] }, 'to', 'too_few'],
      [
        { ...valid, to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) },
        'to',
        'too_many',
      ],
      [{ ...valid, subject: undefined }, 'subject', 'required'],
      [{ ...valid, subject: '' }, 'subject', 'too_short'],
      [{ ...valid, subject: 'x'.repeat(999) }, 'subject', 'too_long'],
      [{ ...valid, to: 'a@b.c, d@e.f' }, 'to', 'invalid_address'],
    ])('422 validation_failed: %# %s %s', async (body, field, code) => {
      const response = await sandbox.send(body)
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('validation_failed')
      expect(error.details).toContainEqual(expect.objectContaining({ field, code }))
    })

    it('accepts exactly 50 recipients and a 998-character subject', async () => {
      const response = await sandbox.send({
        ...valid,
        to: Array.from({ length: 50 }, (_, i) => `u${i}@example.com`),
        subject: 'x'.repeat(998),
      })
      expect(response.status).toBe(201)
    })

    it('a body that is not an object is validation_failed', async () => {
      for (const body of [[], 'x', null, 3]) {
        const response = await sandbox.send(body)
        expect(response.status).toBe(422)
        expect((await errorOf(response)).code).toBe('validation_failed')
      }
    })

    it('422 template_not_found suggests the nearest slugs', async () => {
      const response = await sandbox.send({ ...valid, template: 'welcom' })
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('template_not_found')
      expect(error.message).toContain('"welcome"')
    })

    it('422 template_invalid gives file, line and column', async () => {
      const response = await sandbox.send({ ...valid, template: 'broken' })
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('template_invalid')
      expect(error.details[0]).toMatchObject({
        file: 'broken.liquid',
        line: 1,
        column: expect.any(Number),
      })
    })

    it('422 missing_variables lists every missing variable, with paths', async () => {
      const response = await sandbox.send({
        ...valid,
        template: 'receipt',
        templateVariables: { order: { items: [] } },
      })
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('missing_variables')
      expect((error.details as Array<{ variable: string }>).map((d) => d.variable).sort()).toEqual([
        'customer.name',
        'order.id',
      ])
    })

    it('a variable used only through default is optional', async () => {
      const response = await sandbox.send({ ...valid, templateVariables: { name: 'Ada' } })
      expect(response.status).toBe(201)
    })

    it('422 render_failed for a runaway loop, and the server keeps answering', async () => {
      const started = Date.now()
      const [response, health] = await Promise.all([
        sandbox.send({ ...valid, template: 'runaway', templateVariables: {} }),
        fetch(`${sandbox.url}/_sandbox/api/health`),
      ])
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('render_failed')
      expect(error.details[0]).toMatchObject({
        line: expect.any(Number),
        column: expect.any(Number),
      })
      expect(health.status).toBe(200)
      expect(Date.now() - started).toBeLessThan(5000)
    })

    it('the first failing step answers: shape before template, template before variables', async () => {
      const shape = await sandbox.send({ ...valid, template: 'nope', subject: '' })
      expect((await errorOf(shape)).code).toBe('validation_failed')
      const template = await sandbox.send({ ...valid, template: 'nope', templateVariables: {} })
      expect((await errorOf(template)).code).toBe('template_not_found')
      const variables = await sandbox.send({ ...valid, template: 'broken', templateVariables: {} })
      expect((await errorOf(variables)).code).toBe('template_invalid')
    })

    it('failed sends are not stored', async () => {
      const before = (await jsonOf(fetch(`${sandbox.url}/_sandbox/api/health`))).messages
      await sandbox.send({ ...valid, template: 'nope' })
      await sandbox.send({ ...valid, templateVariables: {} })
      const after = (await jsonOf(fetch(`${sandbox.url}/_sandbox/api/health`))).messages
      expect(after).toBe(before)
    })
  })

  describe('--lenient', () => {
    it('accepts unknown fields and renders missing variables empty, as warnings', async () => {
      const response = await lenient.send({
        ...valid,
        template: 'receipt',
        templateVars: {},
        templateVariables: { order: { items: [{ name: 'Tea' }] } },
      })
      expect(response.status).toBe(201)
      const { warnings } = (await response.json()) as {
        warnings: Array<{ code: string; variable?: string }>
      }
      const codes = warnings.map((w) => `${w.code}:${w.variable ?? ''}`)
      expect(codes).toEqual(
        expect.arrayContaining([
          'unknown_field:',
          'missing_variable:order.id',
          'missing_variable:customer.name',
        ]),
      )
    })
  })
})
