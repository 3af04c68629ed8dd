import type { Element } from 'domhandler'
import { checkAccessibility } from './accessibility.js'
import { MAX_DEPTH, MAX_NODES, type ParsedHtml, parseHtml } from './html.js'
import type { CheckInput, CheckName, CheckReport, ClientScore, Finding } from './types.js'

export type * from './types.js'

/** Gmail clips a message past about 102 KB of HTML; start warning well before. */
export const GMAIL_CLIP_BYTES = 102 * 1024
export const SIZE_WARN_BYTES = 75 * 1024
/** A plain-text part shorter than this is as good as missing. */
const MIN_TEXT_CHARS = 20

const LOCAL_HOST =
  /^(?:[a-z][a-z0-9+.-]*:)?\/\/(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(?::\d+)?(?:[/?#]|$)/i
const MARKETING_WORDS =
  /\b(newsletter|unsubscribe|sale|% off|discount|offer|promo(?:tion)?|deals?|subscribe)\b/i

const attr = (el: Element, name: string) => el.attribs[name]
const isHidden = (el: Element) =>
  /display\s*:\s*none|mso-hide\s*:\s*all|visibility\s*:\s*hidden|max-height\s*:\s*0/i.test(
    attr(el, 'style') ?? '',
  ) || /preheader|preview/i.test(attr(el, 'class') ?? '')

/**
 * Runs every check on one rendered email. Async only because the caniemail data (15 MB in
 * memory) is loaded on first use, not at start. It never throws: a check that throws on this
 * email is a `check_failed` finding naming it and what it threw, and every other check still
 * runs (a bug in one rule, or in a library under it, costs that check, not the whole report).
 *
 * @example
 * const report = await checkEmail({ html: '<html lang="en">…</html>', text: 'Hi Ada…' })
 * report.counts // { error: 0, warning: 1, info: 2 }
 */
export async function checkEmail(input: CheckInput): Promise<CheckReport> {
  const { html, text } = input
  const htmlBytes = Buffer.byteLength(html)
  const findings: Finding[] = []
  const run = async (check: CheckName, rule: () => Finding[] | Promise<Finding[]>) => {
    const outcome = await guarded<Finding[]>(check, rule)
    findings.push(...(outcome.ok ? outcome.value : [outcome.finding]))
  }
  await run('size', () => checkSize(htmlBytes))
  // Every other check reads the parsed HTML: should parsing throw, each says it could not run.
  let parsed: ParsedHtml | undefined
  let unparsed: unknown
  try {
    parsed = parseHtml(html)
  } catch (error) {
    unparsed = error
  }
  const withHtml = (rule: (parsed: ParsedHtml) => Finding[] | Promise<Finding[]>) => () => {
    if (!parsed) throw unparsed
    return rule(parsed)
  }
  // Not a check of its own that could fail: HTML that could not be parsed was not cut.
  await run('size', () => (parsed ? unreadHtml(parsed) : []))
  await run('images', withHtml(checkImages))
  await run(
    'links',
    withHtml((p) => checkLinks(p, text, input.marketing)),
  )
  await run(
    'text',
    withHtml((p) => checkText(p, text)),
  )
  // Accessibility (alt text lives here: img_missing_alt)
  await run('accessibility', withHtml(checkAccessibility))
  let clients: ClientScore[] = []
  await run(
    'clients',
    withHtml(async (p) => {
      const { checkClients } = await import('./clients.js')
      const support = checkClients(html, p)
      clients = support.clients
      return support.findings
    }),
  )
  return report(htmlBytes, findings, clients)
}

/** The findings in order (errors first, then by place), and their counts. */
function report(htmlBytes: number, findings: Finding[], clients: ClientScore[]): CheckReport {
  const order = { error: 0, warning: 1, info: 2 }
  findings.sort(
    (a, b) =>
      order[a.severity] - order[b.severity] ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0),
  )
  const counts = { error: 0, warning: 0, info: 0 }
  for (const f of findings) counts[f.severity]++
  return { htmlBytes, findings, clients, counts }
}

type Guarded<T> = { ok: true; value: T } | { ok: false; finding: Finding }

/** One check run, or the `check_failed` finding of what it threw. */
async function guarded<T>(check: CheckName, run: () => T | Promise<T>): Promise<Guarded<T>> {
  try {
    return { ok: true, value: await run() }
  } catch (error) {
    return { ok: false, finding: checkFailed(check, error) }
  }
}

/**
 * What a check that threw says: which check, the error's name and message, and where it was
 * thrown (the stack's first frame), for a bug report. A warning: the email may be fine, but
 * this check could not say so.
 *
 * @example
 * checkFailed('clients', new Error('boom')).message
 * // 'The clients check could not run on this email: it threw Error: boom (at …). The other checks ran.'
 */
export function checkFailed(check: CheckName, error: unknown): Finding {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const at = error instanceof Error ? /\n\s+at (.+)/.exec(error.stack ?? '')?.[1] : undefined
  return {
    check,
    code: 'check_failed',
    severity: 'warning',
    line: null,
    column: null,
    message: `The ${check} check could not run on this email: it threw ${clip(what)}${at ? ` (at ${clip(at)})` : ''}. The other checks ran.`,
    fix: "This is sendbox's bug, not necessarily the email's: report it with the email's HTML. Until then, check by hand what this check covers.",
  }
}

const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s)

/** An element's line and column, for a finding about it. */
const placeOf = (parsed: ParsedHtml, el: Element) =>
  parsed.placeOf(el.startIndex) ?? { line: null, column: null }

/** Gmail's clipping. */
function checkSize(htmlBytes: number): Finding[] {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  if (htmlBytes >= GMAIL_CLIP_BYTES)
    return [
      {
        check: 'size',
        code: 'gmail_clipping',
        severity: 'error',
        line: null,
        column: null,
        message: `The HTML is ${kb(htmlBytes)}; Gmail clips messages past about 102 KB and hides the rest behind "View entire message".`,
        fix: 'Trim the markup: fewer nested tables, shorter inline styles, no comments, fewer repeated blocks.',
      },
    ]
  if (htmlBytes >= SIZE_WARN_BYTES)
    return [
      {
        check: 'size',
        code: 'size_near_clipping',
        severity: 'warning',
        line: null,
        column: null,
        message: `The HTML is ${kb(htmlBytes)}, close to Gmail's clipping at about 102 KB.`,
        fix: 'Trim the markup before it grows past 102 KB.',
      },
    ]
  return []
}

/**
 * An email past the nodes the checks read (`MAX_NODES`), or nested deeper (`MAX_DEPTH`): said
 * once, where the first node left out starts, since no check says anything of what follows it.
 */
function unreadHtml({ unread, placeOf }: ParsedHtml): Finding[] {
  if (unread === null) return []
  const place = placeOf(unread.from)
  const why =
    unread.past === 'nodes'
      ? `holds more than the ${thousands(MAX_NODES)} nodes (elements, runs of text, comments) sendbox checks`
      : `nests elements more than ${MAX_DEPTH} deep, deeper than browsers build (Chromium puts what is deeper beside, not inside)`
  return [
    {
      check: 'size',
      code: 'html_not_read',
      severity: 'warning',
      line: place?.line ?? null,
      column: place?.column ?? null,
      message: `The HTML ${why}: the checks read it as far as here, and say nothing of the rest.`,
      fix:
        unread.past === 'nodes'
          ? 'Check the rest in a shorter email: real emails hold a few thousand nodes at most, and Gmail clips them past 102 KB.'
          : 'Close the elements you open (an unclosed <div>, <table> or <font> nests all that follows inside it): real emails nest a few dozen deep.',
    },
  ]
}

/** `40,000`: without `toLocaleString`, whose first call loads the locale data (90 ms). */
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',')

/** Images: their size attributes, and where they load from. */
function checkImages(parsed: ParsedHtml): Finding[] {
  const findings: Finding[] = []
  const add = (finding: Finding) => findings.push(finding)
  for (const img of parsed.elements.filter((el) => el.name === 'img')) {
    const place = placeOf(parsed, img)
    const src = attr(img, 'src') ?? ''
    if (attr(img, 'width') === undefined || attr(img, 'height') === undefined)
      add({
        check: 'images',
        code: 'image_missing_size',
        severity: 'warning',
        ...place,
        message: `An image (${src || 'no src'}) has no width and height attributes; Outlook may show it at its full size, and the layout jumps while it loads.`,
        fix: 'Set width and height attributes (in pixels) on the <img>.',
      })
    if (LOCAL_HOST.test(src))
      add({
        check: 'images',
        code: 'localhost_image',
        severity: 'error',
        ...place,
        message: `An image is loaded from ${src}, which no recipient can reach.`,
        fix: 'Serve images from a public https:// URL.',
      })
    else if (/^http:/i.test(src))
      add({
        check: 'images',
        code: 'insecure_image',
        severity: 'warning',
        ...place,
        message: `An image is loaded over plain http (${src}); many clients block or warn about it.`,
        fix: 'Use an https:// URL.',
      })
  }
  return findings
}

/** Links: where each goes, and an unsubscribe link in marketing mail. */
function checkLinks(parsed: ParsedHtml, text: string, marketing: boolean | undefined): Finding[] {
  const links = parsed.elements.filter((el) => el.name === 'a')
  const findings = links.flatMap((a) => linkFindings(parsed, a))
  // Looked for in marketing mail only: a string a link, 24,000 links in 1 MiB.
  const hasUnsubscribe = () =>
    links.some((a) =>
      /unsubscribe|opt[-\s]?out|preferences/i.test(
        `${attr(a, 'href') ?? ''} ${a.children.map((c) => ('data' in c ? c.data : '')).join(' ')}`,
      ),
    ) || /unsubscribe/i.test(text)
  if ((marketing ?? MARKETING_WORDS.test(text)) && !hasUnsubscribe())
    findings.push({
      check: 'links',
      code: 'missing_unsubscribe',
      severity: 'warning',
      line: null,
      column: null,
      message: 'This looks like marketing mail but has no unsubscribe link.',
      fix: 'Add a visible unsubscribe link (and a List-Unsubscribe header when you send for real).',
    })
  return findings
}

/** Where one link goes: nowhere, somewhere only this machine reaches, or over plain http. */
function linkFindings(parsed: ParsedHtml, a: Element): Finding[] {
  const place = placeOf(parsed, a)
  const href = (attr(a, 'href') ?? '').trim()
  // Worded by what is wrong with the address, never "empty": a link without text is the
  // accessibility check's link_missing_text, and an image link got both and read as one.
  if (href === '#')
    return [
      {
        check: 'links',
        code: 'placeholder_link',
        severity: 'warning',
        ...place,
        message: 'A link\'s address is the placeholder href="#": in an inbox it goes nowhere.',
        fix: 'Point it at the real URL (pass it in as a variable), or make it plain text.',
      },
    ]
  if (href === '')
    return [
      {
        check: 'links',
        code: 'empty_link',
        severity: 'warning',
        ...place,
        message: `A link has ${attr(a, 'href') === undefined ? 'no href attribute' : 'an empty href'}: it has no address, and goes nowhere in an inbox.`,
        fix: 'Point it at a real URL, or make it plain text.',
      },
    ]
  if (LOCAL_HOST.test(href))
    return [
      {
        check: 'links',
        code: 'localhost_link',
        severity: 'error',
        ...place,
        message: `A link points at ${href}, which cannot work in a real inbox.`,
        fix: 'Build links from a public base URL (pass it in as a variable).',
      },
    ]
  if (/^http:/i.test(href))
    return [
      {
        check: 'links',
        code: 'insecure_link',
        severity: 'warning',
        ...place,
        message: `A link uses plain http (${href}).`,
        fix: 'Use an https:// URL.',
      },
    ]
  return []
}

/** The plain-text part, and the preheader inbox lists show. */
function checkText(parsed: ParsedHtml, text: string): Finding[] {
  const findings: Finding[] = []
  const plain = text.replace(/\s+/g, ' ').trim()
  if (plain.length === 0)
    findings.push({
      check: 'text',
      code: 'empty_text',
      severity: 'error',
      line: null,
      column: null,
      message: 'The plain-text version is empty.',
      fix: 'Put real text content in the HTML (not only images).',
    })
  else if (plain.length < MIN_TEXT_CHARS)
    findings.push({
      check: 'text',
      code: 'short_text',
      severity: 'warning',
      line: null,
      column: null,
      message: `The plain-text version is only ${plain.length} characters.`,
      fix: 'Make sure the message reads on its own without images.',
    })
  const body = parsed.elements.find((el) => el.name === 'body')
  // The first 8 after <body>, not every element of the email filtered first.
  const firstBlocks: Element[] = []
  for (const el of parsed.elements) {
    if (firstBlocks.length === 8) break
    if (!body || (el.startIndex ?? 0) > (body.startIndex ?? 0)) firstBlocks.push(el)
  }
  if (!firstBlocks.some(isHidden))
    findings.push({
      check: 'text',
      code: 'missing_preheader',
      severity: 'warning',
      ...(body ? placeOf(parsed, body) : { line: null, column: null }),
      message: 'There is no preheader: inbox lists will preview whatever text comes first.',
      fix: 'Add a hidden preheader right after <body>, e.g. <div style="display:none;max-height:0;overflow:hidden">A one-line summary</div>.',
    })
  return findings
}
