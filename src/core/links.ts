import { Parser } from 'htmlparser2'
import type { MessageLink } from '../store/types.js'

export type { MessageLink }

/** Elements whose content is never shown as text. */
const HIDDEN: ReadonlySet<string> = new Set([
  'script',
  'style',
  'title',
  'template',
  'head',
  'noscript',
])

/**
 * Elements that break a line where they start and end: in `<a><div>Reset</div><div>password</div></a>`
 * a reader sees two words, not "Resetpassword".
 */
const BLOCK: ReadonlySet<string> = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'center',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
])

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim()

/** An anchor being read: its text so far, and the `alt` of the images it holds. */
interface OpenAnchor {
  link: MessageLink
  text: string
  alts: string[]
}

/**
 * Every `<a href>` and `<area href>` of an HTML document, in document order, duplicates kept
 * (docs/testing.md). A real parser, not a regular expression: `<a title="a>b" href="…">` has a `>`
 * inside a quoted attribute, and `&amp;` in an href is `&` to a browser.
 *
 * @example
 * htmlLinks('<a href="https://x.test/?a=1&amp;b=2"> Sign <b>in</b> </a>')
 * // [{ href: 'https://x.test/?a=1&b=2', text: 'Sign in' }]
 * htmlLinks('<a href="/r"><img src="r.png" alt="Reset"></a>') // [{ href: '/r', text: 'Reset' }]
 */
export function htmlLinks(html: string): MessageLink[] {
  const links: MessageLink[] = []
  let anchor: OpenAnchor | null = null
  let hidden = 0
  const closeAnchor = () => {
    if (!anchor) return
    const text = collapse(anchor.text)
    anchor.link.text = text || collapse(anchor.alts.join(' '))
    anchor = null
  }
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (HIDDEN.has(name)) hidden++
        // A browser closes an open anchor when another one starts (anchors do not nest).
        if (name === 'a') closeAnchor()
        if ((name === 'a' || name === 'area') && attribs.href !== undefined) {
          const link: MessageLink = { href: attribs.href.trim(), text: '' }
          links.push(link)
          // An area has no content: what it shows is the picture behind it, named by its alt.
          if (name === 'area') link.text = collapse(attribs.alt ?? '')
          else anchor = { link, text: '', alts: [] }
          return
        }
        if (!anchor) return
        if (name === 'img' && attribs.alt) anchor.alts.push(attribs.alt)
        if (BLOCK.has(name)) anchor.text += ' '
      },
      ontext(data) {
        if (anchor && hidden === 0) anchor.text += data
      },
      onclosetag(name) {
        if (HIDDEN.has(name) && hidden > 0) hidden--
        if (name === 'a') closeAnchor()
        else if (anchor && BLOCK.has(name)) anchor.text += ' '
      },
    },
    { decodeEntities: true },
  )
  parser.end(html)
  closeAnchor()
  return links
}

/** `http(s)` URLs in plain text. Brackets and quotes end one (html-to-text writes `text [url]`). */
const TEXT_URL = /https?:\/\/[^\s<>"'[\]{}]+/gi

/**
 * The `http(s)` URLs of a text, in order, without repeats; punctuation that ends the sentence
 * around a URL (`.`, `,`, `)` without its `(`) is not part of it.
 *
 * @example
 * textUrls('Open https://acme.test/reset?t=1. Or (https://acme.test/help).')
 * // ['https://acme.test/reset?t=1', 'https://acme.test/help']
 */
export function textUrls(text: string): string[] {
  const urls = new Set<string>()
  for (const [match] of text.matchAll(TEXT_URL)) {
    let url = match.replace(/[.,;:!?*]+$/, '')
    // A closing parenthesis belongs to the URL only when the URL opened one.
    while (url.endsWith(')') && count(url, '(') < count(url, ')'))
      url = url.slice(0, -1).replace(/[.,;:!?*]+$/, '')
    if (/^https?:\/\/./i.test(url)) urls.add(url)
  }
  return [...urls]
}

const count = (text: string, char: string) => text.split(char).length - 1

/**
 * A message's links (docs/testing.md#what-a-record-carries): the HTML's links, then each URL of the text part that they
 * did not list, with `text: null`.
 *
 * @example
 * messageLinks('<a href="https://a.test">A</a>', 'A [https://a.test] and https://b.test')
 * // [{ href: 'https://a.test', text: 'A' }, { href: 'https://b.test', text: null }]
 */
export function messageLinks(html: string, text: string): MessageLink[] {
  const links = htmlLinks(html)
  const listed = new Set(links.map((link) => link.href))
  for (const url of textUrls(text)) if (!listed.has(url)) links.push({ href: url, text: null })
  return links
}
