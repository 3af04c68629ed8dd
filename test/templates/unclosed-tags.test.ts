import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js'

/**
 * A block tag left open inside another (an `{% if %}` inside a `{% block %}`) is reported as
 * the tag that is not closed, at its own line and column, by the API (and so the inbox page,
 * which shows the API's details) and by `sendbox check` alike. liquidjs itself sees only the
 * outer tag's end, which it cannot place: `Unknown tag "endblock"`, at the block's end.
 */

const FRONT = '---\ndescription: A welcome\n---\n'
const TEMPLATES = {
  'base.liquid': '<html><body>{% block content %}{% endblock %}</body></html>\n',
  // Line 7 (front matter counted), column 3.
  'welcome.liquid': `${FRONT}{% layout "base" %}\n{% block content %}\n<p>Hello</p>\n  {% if name %}\n<p>{{ name }}</p>\n{% endblock %}\n`,
  // Line 2, column 5; no front matter, no layout.
  'loop.liquid': '{% if items %}\n    {% for item in items %}<li>{{ item }}</li>\n{% endif %}\n',
  // The innermost open tag is named, not the outer one: line 3, column 1.
  'nested.liquid':
    '{% for a in list %}\n{% if a %}x{% endif %}\n{%- capture c -%}{{ a }}\n{% endfor %}',
  // Still at the end of the file, as before: line 4, column 3.
  'end.liquid': `${FRONT}  {% if name %}never closed\n`,
  // An end tag with nothing open: line 2, column 1.
  'extra.liquid': '<p>{{ name }}</p>\n{% endif %}\n',
  // Inside a comment, tags open nothing: the stray end is still found, line 2, column 1.
  'commented.liquid': '{% comment %}{% if a %}{% endcomment %}\n{% endfor %}\n',
}

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox(TEMPLATES)
})
afterAll(() => sandbox?.close())

const CASES = [
  ['welcome', 7, 3, 'Tag {% if name %} is not closed (missing {% endif %} before {% endblock %}).'],
  [
    'loop',
    2,
    5,
    'Tag {% for item in items %} is not closed (missing {% endfor %} before {% endif %}).',
  ],
  [
    'nested',
    3,
    1,
    'Tag {%- capture c -%} is not closed (missing {% endcapture %} before {% endfor %}).',
  ],
  ['end', 4, 3, 'Tag {% if name %} is not closed (missing {% endif %}).'],
  ['extra', 2, 1, '{% endif %} closes nothing: no {% if %} is open here.'],
  ['commented', 2, 1, '{% endfor %} closes nothing: no {% for %} is open here.'],
] as const

describe('an unclosed tag inside another is named and located', () => {
  it.each(CASES)('the API: %s.liquid:%i:%i', async (slug, line, column, message) => {
    const response = await sandbox.send({
      template: slug,
      from: 'Acme <hello@acme.test>',
      to: 'ada@example.com',
      subject: 'Hi',
      templateVariables: { name: 'Ada', items: [1], list: [1] },
    })
    expect(response.status).toBe(422)
    const body = (await response.json()) as {
      error: { code: string; details: Array<Record<string, unknown>> }
    }
    expect(body.error.code).toBe('template_invalid')
    expect(body.error.details).toEqual([{ file: `${slug}.liquid`, line, column, message }])
  })

  it('sendbox check: the same places and messages', async () => {
    const result = await runCli(['check', '--templates', 'templates', '--no-email-checks'], {
      cwd: sandbox.dir,
    })
    expect(result.code).toBe(1)
    for (const [slug, line, column, message] of CASES)
      expect(result.stdout).toContain(
        `templates/${slug}.liquid:${line}:${column}  template_invalid  ${message}`,
      )
    expect(result.stdout).not.toContain('Unknown tag')
  })
})
