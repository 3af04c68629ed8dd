import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeOf, raw } from '../helpers/http.js'
import { startTestSandbox, TOKEN, type TestSandbox } from '../helpers/sandbox.js'

/** A partial name computed at render time reads template files only: never `.env` or notes beside them. */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({
    't.liquid': '[{% include name %}]',
    'r.liquid': '[{% render name %}]',
    'partials/ok.liquid': 'fine',
    'partials/ok.html': 'html fine',
    '.env': 'SECRET=hunter2',
    'notes.txt': 'hunter2 notes',
    'partials/.private.liquid': 'hunter2 private',
    '.hidden/p.liquid': 'hunter2 hidden',
  })
})
afterAll(() => sandbox?.close())

const send = (template: string, name: string) =>
  raw(`${sandbox.url}/messages`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      template,
      from: 'a@acme.test',
      to: 'b@example.com',
      subject: 'Hi',
      templateVariables: { name },
    }),
  })

describe('dynamic includes', () => {
  it.each(['t', 'r'])('%s: a computed name of a template file renders it', async (template) => {
    for (const [name, expected] of [
      ['partials/ok', '[fine]'],
      ['partials/ok.html', '[html fine]'],
    ]) {
      const response = await send(template, name!)
      expect(response.status).toBe(201)
      expect((await sandbox.waitForMessage({ template, timeout: 1000 })).html).toBe(expected)
      await sandbox.clear()
    }
  })

  it.each([
    '.env',
    'notes.txt',
    'notes',
    'partials/.private',
    'partials/.private.liquid',
    '.hidden/p',
    '.hidden/p.liquid',
    './.env',
  ])('%s is refused: 422 render_failed, nothing of the file in the answer', async (name) => {
    for (const template of ['t', 'r']) {
      const response = await send(template, name)
      expect(response.status).toBe(422)
      expect(codeOf(response)).toBe('render_failed')
      expect(response.body).not.toContain('hunter2')
      const preview = await raw(`${sandbox.url}/_sandbox/api/templates/${template}/render`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ variables: { name } }),
      })
      expect(preview.body).not.toContain('hunter2')
    }
    expect(await sandbox.messages()).toEqual([])
  })
})
