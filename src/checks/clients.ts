import { DoIUseEmail } from '@jsx-email/doiuse-email'
import type { Element } from 'domhandler'
import { type ParsedHtml, styleText } from './html.js'
import { andList, clientList, clientName } from './client-names.js'
import { keep } from './memo.js'
import type { ClientScore, Finding } from './types.js'

/** The clients most mail is read in; caniemail knows more, but these decide a design. */
export const CLIENTS = [
  'apple-mail.macos',
  'apple-mail.ios',
  'gmail.desktop-webmail',
  'gmail.ios',
  'gmail.android',
  'outlook.windows',
  'outlook.macos',
  'outlook.ios',
  'yahoo.desktop-webmail',
  'samsung-email.android',
  'thunderbird.macos',
  'fastmail.desktop-webmail',
]

interface Messages {
  /** Which answer this is (numbered as computed): what a run replayed, named in short. */
  id?: number
  errors: string[]
  warnings: string[]
  notes: string[]
}

/**
 * Past this many cached answers, start over: a long-running server sees unbounded styles. A key
 * (a style attribute, a node's attributes) past 4 KB is answered anew each time (`keep`), and a
 * stylesheet past 128 KB.
 */
const CACHED = { entries: 20_000, keyChars: 4096 }
const STYLESHEETS = { entries: 50, keyChars: 128 * 1024 }

/**
 * doiuse-email with its answers cached. It looks every feature up again for every node and
 * every inline declaration of every email (and re-reads its client list per call), which made
 * email checks cost as much as parsing and rendering 300 templates. The answers depend only on
 * the feature, the declaration, the node's own tag and attributes, or the stylesheet's text
 * (the clients are fixed), so each is computed once and its messages replayed after that.
 */
export class CachingDoIUseEmail extends DoIUseEmail {
  readonly #features = new Map<string, Messages>()
  readonly #declarations = new Map<string, Messages>()
  readonly #nodes = new Map<string, Messages>()
  readonly #stylesheets = new Map<string, Messages>()
  readonly #selectors = new Map<string, Messages>()
  /** The answers replayed in this run: an answer says the same the second time (see `#replay`). */
  #replayed = new Set<Messages>()
  /** How deep in computing answers: what is computed must hold every message it gives. */
  #computing = 0
  #answers = 0

  /**
   * Checks one email from the DOM the other checks already parsed (doiuse's own `check` would
   * parse it again); each distinct `<style>` block is parsed and checked once. Returns doiuse's
   * errors (`\`feature\` is not supported by \`client\``), to be read as a set: an answer
   * repeated in the email is replayed once.
   */
  run(parsed: ParsedHtml): string[] {
    this.errors = []
    this.warnings = []
    this.notes = []
    this.#replayed = new Set()
    // An email's `<style>`s past the rules the checks read are not looked up either.
    for (const style of parsed.stylesRead ? parsed.styles : []) {
      const text = styleText(style)
      this.#replay(this.#stylesheets, text, () => this.checkStylesheet(parsed.css(text).sheet))
    }
    this.checkHtml(parsed.document)
    return this.errors
  }

  /**
   * What the last run's errors are, in short: the answers it replayed that hold errors. Two runs
   * with the same key have the same errors (two keys may too: answers can overlap).
   */
  runKey(): string {
    const ids: number[] = []
    for (const answer of this.#replayed) if (answer.errors.length) ids.push(answer.id!)
    return ids.sort((a, b) => a - b).join(' ')
  }

  override checkFeaturesSupport(featureTitles: string | string[]): void {
    for (const title of [featureTitles].flat())
      this.#replay(this.#features, title, () => this.#checkFeature(title))
  }

  /**
   * One feature, client by client. caniemail has no entry for some features on some clients
   * (17 of its 290: `table-layout`, `hyphens`, `overflow-wrap`… on Thunderbird, `font-stretch` on
   * Fastmail), and doiuse throws ``Feature `…` not found on `…` `` for those, which took the whole
   * check down with it. Such a feature is unknown for that client: no error, no warning, and the
   * other clients are still asked. Any other throw is doiuse's and goes up.
   */
  #checkFeature(title: string): void {
    const clients = this.emailClients
    try {
      for (const client of clients) {
        this.emailClients = [client]
        try {
          super.checkFeaturesSupport(title)
        } catch (error) {
          if ((error as Error)?.message !== `Feature \`${title}\` not found on \`${client}\`.`)
            throw error
        }
      }
    } finally {
      this.emailClients = clients
    }
  }

  /**
   * A node's own answer depends only on its tag and attributes; children are walked here, with
   * a stack rather than doiuse's recursion, which a deeply nested email overflowed.
   */
  override checkHtmlNode(root: Element): void {
    const stack = [root]
    for (let node = stack.pop(); node; node = stack.pop()) {
      this.#replay(this.#nodes, nodeKey(node), () => this.#checkOwn(node))
      for (let i = node.childNodes.length - 1; i >= 0; i--)
        if (node.childNodes[i]!.type === 'tag') stack.push(node.childNodes[i] as Element)
    }
  }

  /**
   * The node without its children. doiuse reads its `style` with style-to-object, which throws
   * on a declaration without a colon (`style="color"`) or an unclosed comment, where a mail
   * client skips the bad declaration and applies the rest: so does this, then.
   */
  #checkOwn(node: Element): void {
    const own = (attributes: Element['attributes']) =>
      ({ tagName: node.tagName, attributes, childNodes: [] }) as unknown as Element
    try {
      super.checkHtmlNode(own(node.attributes))
    } catch (error) {
      if (node.attribs.style === undefined) throw error
      this.errors = []
      this.warnings = []
      this.notes = []
      super.checkHtmlNode(own(node.attributes.filter((a) => a.name !== 'style')))
      this.checkCSSDeclarations(readableDeclarations(node.attribs.style))
    }
  }

  /**
   * Selector by selector: doiuse parses each with css-what, which throws on one it cannot read
   * (`td:nth-child(2n+1`, `a:has()`). A mail client drops a rule whose selector it cannot read,
   * so such a selector uses no feature.
   */
  override checkCSSSelectors(selectors: string[]): void {
    for (const selector of selectors)
      this.#replay(this.#selectors, selectorShape(selector), () => {
        try {
          super.checkCSSSelectors([selector])
        } catch {
          // Unreadable: nothing used.
        }
      })
  }

  override checkCSSDeclarations(declarations: Array<{ property: string; value: string }>): void {
    for (const declaration of declarations) {
      this.#replay(this.#declarations, `${declaration.property}\0${declaration.value}`, () =>
        super.checkCSSDeclarations([declaration]),
      )
    }
  }

  /**
   * Runs `compute` once per key, capturing what it reports; afterwards replays that. An answer
   * already replayed in this run is not replayed again (the same node, the same declaration on
   * every row of a table): a run's messages are read as a set. Inside a computation everything
   * is replayed, as the answer being captured must hold it all.
   */
  #replay(cache: Map<string, Messages>, key: string, compute: () => void): void {
    let messages = cache.get(key)
    if (!messages) {
      const outer: Messages = { errors: this.errors, warnings: this.warnings, notes: this.notes }
      this.errors = []
      this.warnings = []
      this.notes = []
      this.#computing++
      try {
        compute()
      } finally {
        this.#computing--
      }
      messages = {
        id: ++this.#answers,
        errors: this.errors,
        warnings: this.warnings,
        notes: this.notes,
      }
      ;({ errors: this.errors, warnings: this.warnings, notes: this.notes } = outer)
      keep(cache, key, messages, cache === this.#stylesheets ? STYLESHEETS : CACHED)
    }
    if (this.#computing === 0) {
      if (this.#replayed.has(messages)) return
      this.#replayed.add(messages)
    }
    this.errors.push(...messages.errors)
    this.warnings.push(...messages.warnings)
    this.notes.push(...messages.notes)
  }
}

let checker: ClientChecker | undefined

/**
 * What of a node doiuse's answer depends on: its tag, its attributes' names, and the values of
 * `style` and `type` (`<input type="checkbox">`) and of `href` only whether it is `#…` or
 * `mailto:…` (its two link features). Keyed by every value, each link, id and image of an
 * email was an answer computed anew (a thousand ids, a thousand misses).
 *
 * @example
 * nodeKey(a) // 'a\0href\0class' for <a href="https://acme.test/x" class="button">
 */
function nodeKey(node: Element): string {
  let key = node.tagName
  for (const name in node.attribs) {
    const value = node.attribs[name]!
    key += `\0${name}`
    if (name === 'style' || name === 'type') key += `=${value}`
    else if (name === 'href' && value.startsWith('#')) key += '=#'
    else if (name === 'href' && value.startsWith('mailto:')) key += '=mailto:'
  }
  return key
}

/**
 * What of a selector doiuse's answer depends on: its tokens' types and attribute names (css-what
 * parses it: "Class selector", "Child combinator"…) and the pseudo-classes written in it, not the
 * names of its classes and ids. A stylesheet's selectors, each answered anew, were the client
 * check's time on a sheet of many rules (50,000 classes, 1 s).
 *
 * @example
 * selectorShape('table.footer > td#cell-2:hover') // 'table.n > td#n:hover'
 */
export const selectorShape = (selector: string) =>
  selector.replace(/([.#])-?[_a-zA-Z][\w-]*/g, '$1n')

/**
 * The declarations of a `style` attribute a client would apply: comments out, each `name:
 * value` with a colon kept, the rest (`color`, `;;`) skipped.
 *
 * @example
 * readableDeclarations('color; font-size: 12px /* small') // [{ property: 'font-size', value: '12px' }]
 */
export function readableDeclarations(style: string): Array<{ property: string; value: string }> {
  return style
    .replace(/\/\*(?:[^*]|\*(?!\/))*(?:\*\/|$)/g, '')
    .split(';')
    .map((part) => ({ part, colon: part.indexOf(':') }))
    .filter(({ part, colon }) => colon > 0 && part.slice(colon + 1).trim() !== '')
    .map(({ part, colon }) => ({
      property: part.slice(0, colon).trim().toLowerCase(),
      value: part.slice(colon + 1).trim(),
    }))
}

const UNSUPPORTED = /^`(.+)` is not supported by `(.+)`$/
/** Where to look for a feature in the HTML, to point at a line: `display:grid` → `grid`. */
function needle(feature: string): string {
  const tag = /^<(\w+)> element$/.exec(feature)?.[1]
  if (tag) return `<${tag}`
  const attribute = /^([\w-]+) attribute$/.exec(feature)?.[1]
  if (attribute) return ` ${attribute}=`
  const decl = /^([\w-]+):(.+)$/.exec(feature)
  if (decl) return decl[2]!.trim()
  if (feature.startsWith('@')) return feature
  if (feature.startsWith(':')) return feature
  return feature.toLowerCase()
}

/**
 * What to do about the features the example layout and most emails use, which clients ignore
 * harmlessly; anything else gets the general advice.
 */
const FEATURE_FIXES: Record<string, string> = {
  'target attribute':
    'Nothing to do: where target is ignored, the link opens the way that client opens every link.',
  '<body> element':
    'Those clients drop <body> and its attributes: put background colours and padding on a wrapper table too.',
  opacity:
    'Where opacity is ignored the element shows fully: use it only for effects that may be missing.',
  overflow:
    'Where overflow is ignored nothing is clipped: do not rely on it to hide content (hide a preheader with display:none and max-height:0 too).',
  'border-radius': 'Corners come out square there; fine unless the design depends on them.',
  '@media':
    'Those clients show the base design: keep it complete, and let media queries only add to it (dark mode, narrow screens).',
}

function featureFix(features: string[]): string {
  const general = features.filter((f) => !FEATURE_FIXES[f])
  return [
    ...features
      .filter((f) => FEATURE_FIXES[f])
      .map((f) => (features.length > 1 ? `${f}: ${FEATURE_FIXES[f]}` : FEATURE_FIXES[f]!)),
    ...(general.length
      ? [
          `Give ${andList(general)} a fallback that still reads well where ${general.length === 1 ? 'it is' : 'they are'} ignored, or avoid ${general.length === 1 ? 'it' : 'them'}.`,
        ]
      : []),
  ].join(' ')
}

/** What the clients lack, worked out from a run's distinct errors: the same for every email that has them. */
interface Support {
  clients: ClientScore[]
  /** One note per set of clients that lack the same features, without its line. */
  notes: Array<Omit<Finding, 'line'> & { features: string[] }>
}

/**
 * Scores each client on the features the email uses, from the bundled caniemail data.
 *
 * @example
 * checkClients(html, parseHtml(html)).findings // [{ code: 'unsupported_feature', line: 4, … }]
 */
export function checkClients(
  html: string,
  parsed: ParsedHtml,
): { clients: ClientScore[]; findings: Finding[] } {
  const { doiuse } = (checker ??= new ClientChecker())
  const errors = doiuse.run(parsed)
  const support = checker.support(doiuse.runKey(), errors)
  const lower = html.toLowerCase()
  const lineOf = (feature: string) => {
    const index = lower.indexOf(needle(feature).toLowerCase())
    return index >= 0 ? parsed.lineOf(index) : null
  }
  const findings: Finding[] = support.notes.map(({ features, ...note }) => {
    const lines = features.map(lineOf).filter((line): line is number => line !== null)
    // Keys in the order every finding has them (the JSON answers show it).
    const { check, code, severity, message, fix, column } = note
    return {
      check,
      code,
      severity,
      message,
      fix,
      line: lines.length ? Math.min(...lines) : null,
      column,
    }
  })
  // Copies: the caller owns what it gets, the cache keeps its own.
  const clients = support.clients.map((c) => ({ ...c, unsupported: [...c.unsupported] }))
  return { clients, findings }
}

/**
 * doiuse with its answers cached, and what a set of its errors says about the clients, cached
 * too: the emails of one project use the same features, so the scores and the notes' sentences
 * (a fifth of the client check's time, measured on bench/check-email.js) are written once.
 */
class ClientChecker {
  readonly doiuse = new CachingDoIUseEmail({ emailClients: CLIENTS })
  readonly #support = new Map<string, Support>()

  /** What a run's `errors` say, by the run's key (`CachingDoIUseEmail.runKey`). */
  support(key: string, errors: string[]): Support {
    let support = this.#support.get(key)
    if (!support) {
      support = supportOf(new Set(errors))
      keep(this.#support, key, support, CACHED)
    }
    return support
  }
}

function supportOf(errors: Set<string>): Support {
  const unsupported = new Map<string, Set<string>>()
  for (const error of errors) {
    const m = UNSUPPORTED.exec(error)
    if (!m) continue
    const [, feature, client] = m
    if (!unsupported.has(client!)) unsupported.set(client!, new Set())
    unsupported.get(client!)!.add(feature!)
  }
  // doiuse reports only failures; the features an email "uses" are those any client lacks.
  const used = new Set([...unsupported.values()].flatMap((s) => [...s]))
  const clients = CLIENTS.map((client) => {
    const missing = [...(unsupported.get(client) ?? [])].sort()
    const supported = used.size - missing.length
    return {
      client,
      name: clientName(client),
      supported,
      used: used.size,
      score: used.size === 0 ? 100 : Math.round((100 * supported) / used.size),
      unsupported: missing,
    }
  })
  return { clients, notes: notesOf(clients, used) }
}

/**
 * One note per set of clients that lack the same features: "overflow and border-radius are not
 * supported by Outlook (Windows)", not one note per feature saying the same thing.
 */
function notesOf(clients: ClientScore[], used: Set<string>): Support['notes'] {
  const byLacking = new Map<string, { lacking: string[]; features: string[] }>()
  for (const feature of [...used].sort()) {
    const lacking = clients.filter((c) => c.unsupported.includes(feature)).map((c) => c.client)
    const key = lacking.join(' ')
    const group = byLacking.get(key) ?? { lacking, features: [] }
    group.features.push(feature)
    byLacking.set(key, group)
  }
  return [...byLacking.values()].map(({ lacking, features }) => ({
    check: 'clients',
    code: 'unsupported_feature',
    // Most of the clients lacking a feature is worth a warning; a few is information.
    severity: lacking.length * 2 > CLIENTS.length ? 'warning' : 'info',
    message: `${andList(features)} ${features.length === 1 ? 'is' : 'are'} not supported by ${lacking.length === 1 ? '' : `${lacking.length} of ${CLIENTS.length} major clients: `}${clientList(lacking)}.`,
    fix: featureFix(features),
    column: null,
    features,
  }))
}
