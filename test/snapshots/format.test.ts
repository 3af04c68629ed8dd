import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { normalizeHtml, normalizeText } from '../../src/core/snapshot-format.js'

/**
 * The bytes of a snapshot (src/core/snapshot-format.ts): re-indented so that it diffs well, and
 * otherwise what was rendered, so that it renders as the email does.
 */

/** HTML's whitespace (a no-break space is text). */
const SPACE = /[ \t\n\f\r]+/
const words = (html: string) => html.split(SPACE).filter(Boolean)

describe('normalizeHtml', () => {
  it('indents by nesting, two spaces a level, closing tags at their level; LF; one line break at the end', () => {
    expect(
      normalizeHtml(
        '\r\n<table>\r\n\r\n      <tr>\n<td>Hi\n   Ada</td>\n\n\n    </tr>\n</table>  \n\n',
      ),
    ).toBe('<table>\n  <tr>\n    <td>Hi\n      Ada</td>\n  </tr>\n</table>\n')
  })

  it('adds no whitespace where there was none: inline-block columns and inline runs stay touching', () => {
    const columns =
      '<div><div style="display:inline-block">A</div><div style="display:inline-block">B</div><b>x</b><i>y</i></div>'
    expect(normalizeHtml(columns)).toBe(`${columns}\n`)
  })

  it('keeps <pre>, <textarea>, <script> and <style> as they are, and a no-break space', () => {
    const html =
      '<div>\n<pre>  a\n     b  </pre>\n<textarea>\n  x\n</textarea>\n<style>\n  .a { color: red }\n</style>\n<script>\n  var a = 1\n</script>\n<p>a\u00a0\n\u00a0b&nbsp;</p>\n</div>'
    expect(normalizeHtml(html)).toBe(
      '<div>\n  <pre>  a\n     b  </pre>\n  <textarea>\n  x\n</textarea>\n  <style>\n  .a { color: red }\n</style>\n  <script>\n  var a = 1\n</script>\n  <p>a\u00a0\n    \u00a0b&nbsp;</p>\n</div>\n',
    )
  })

  it('leaves comments (Outlook conditionals too), attributes and entities as written', () => {
    const html =
      '<body>\n<!--[if mso]>\n<table><tr><td>\n<![endif]-->\n<a   href="x?a=1&amp;b=2"\n   title=\'t\'>&lt;go&gt;</a>\n</body>'
    expect(normalizeHtml(html)).toBe(
      '<body>\n  <!--[if mso]>\n<table><tr><td>\n<![endif]-->\n  <a   href="x?a=1&amp;b=2"\n   title=\'t\'>&lt;go&gt;</a>\n</body>\n',
    )
  })

  it('void elements and implied closes keep the levels right', () => {
    expect(normalizeHtml('<div>\n<br>\n<img src=x>\n<p>a\n<p>b\n</div>')).toBe(
      '<div>\n  <br>\n  <img src=x>\n  <p>a\n  <p>b\n</div>\n',
    )
  })

  const htmlish = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '<div>',
          '</div>',
          '<p>',
          '</p>',
          '<b>',
          '</b>',
          '<br>',
          '<pre>',
          '</pre>',
          '<!-- c -->',
          '&amp;',
          '\u00a0',
        ),
        fc.constantFrom(' ', '\n', '\r\n', '\t', '  \n  ', '\n\n'),
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '<', '>', '/') }),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join(''))

  it('changes whitespace only, and only where there was some: the same words, in the same runs', () => {
    fc.assert(
      fc.property(htmlish, (html) => {
        const normalized = normalizeHtml(html)
        expect(normalized.replace(/[ \t\n\f\r]/g, '')).toBe(html.replace(/[ \t\n\f\r]/g, ''))
        expect(words(normalized)).toEqual(words(html.replace(/\r\n?/g, '\n')))
      }),
      { seed: 24, numRuns: 500 },
    )
  })

  it('is idempotent: a snapshot normalised again is the same bytes', () => {
    fc.assert(
      fc.property(htmlish, (html) => {
        const once = normalizeHtml(html)
        expect(normalizeHtml(once)).toBe(once)
      }),
      { seed: 24, numRuns: 500 },
    )
  })
})

describe('normalizeText', () => {
  it('LF line endings, one line break at the end, the rest as it is', () => {
    expect(normalizeText('Hi  Ada\r\n\r\n  two\r\n\r\n\r\n')).toBe('Hi  Ada\n\n  two\n')
    expect(normalizeText('x')).toBe('x\n')
  })
})
