import { doIUseEmail } from '@jsx-email/doiuse-email'
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

const UNSUPPORTED = /^`(.+)` is not supported by `(.+)`$/
/** Where to look for a feature in the HTML, to point at a line: `display:grid` → `grid`. */
function needle(feature: string): string {
  const tag = /^<(\w+)> element$/.exec(feature)?.[1]
  if (tag) return `<${tag}`
  const decl = /^([\w-]+):(.+)$/.exec(feature)
  if (decl) return decl[2]!.trim()
  if (feature.startsWith('@')) return feature
  if (feature.startsWith(':')) return feature
  return feature.toLowerCase()
}

/** Scores each client on the features the email uses, from the bundled caniemail data. */
export function checkClients(html: string, lineOfIndex: (index: number) => number | null): { clients: ClientScore[]; findings: Finding[] } {
  const result = doIUseEmail(html, { emailClients: CLIENTS })
  const errors = result.success ? [] : result.errors
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
    return { client, supported, used: used.size, score: used.size === 0 ? 100 : Math.round((100 * supported) / used.size), unsupported: missing }
  })
  const findings: Finding[] = []
  const lower = html.toLowerCase()
  for (const feature of [...used].sort()) {
    const lacking = clients.filter((c) => c.unsupported.includes(feature)).map((c) => c.client)
    // Most of the clients lacking a feature is worth a warning; a few is information.
    const severity = lacking.length * 2 > CLIENTS.length ? 'warning' : 'info'
    const index = lower.indexOf(needle(feature).toLowerCase())
    findings.push({
      check: 'clients',
      code: 'unsupported_feature',
      severity,
      message: `${feature} is not supported by ${lacking.length} of ${CLIENTS.length} major clients (${lacking.join(', ')}).`,
      fix: `Give ${feature} a fallback that still reads well where it is ignored, or avoid it.`,
      line: index >= 0 ? lineOfIndex(index) : null,
    })
  }
  return { clients, findings }
}
