/**
 * One-time codes in the text part of a message (docs/testing.md#what-a-record-carries): what a reader would type.
 *
 * A candidate is 4 to 10 digits (two groups joined by one space or hyphen allowed: `482 913`),
 * or 4 to 10 uppercase letters and digits with at least one of each. It is a code when it stands
 * alone on its line, or when a word such as "code" comes before it in the same sentence; never
 * when it is part of a URL or an address, a date, a time, an amount of money, or the number after
 * `#`, "order", "invoice" or "No.".
 */

/** Words that announce a code earlier in the same sentence. */
const CODE_WORD =
  /\b(?:codes?|pin|otp|passcodes?|passwords?|verification|verify|one-time|2fa|mfa)\b/i

/** What a number right after is not a code: an order, invoice or reference number, a postal code. */
const NUMBER_LABEL =
  /(?:#|\b(?:order|invoice|receipt|ref(?:erence)?|ticket|case|account|acct|zip|postal|post)\b\.?(?:\s*(?:number|num|nr|no|id|code)\b\.?)?|\bno\.|\bnr\.)\s*[:#]?\s*$/i

/** Currencies written as letters, before or after an amount. */
const CURRENCY = /^(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|INR|SEK|NOK|DKK|PLN|BRL|MXN)$/

/** Sentence ends: `.`, `!` or `?` before a space, or a blank line. */
const SENTENCE_END = /[.!?](?=\s)|\n\s*\n/g

const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?'
/** A year after a month (`November 21, 2026`, `21 Nov 2026`, `Nov 2026`). */
const AFTER_MONTH = new RegExp(`\\b${MONTH}\\s+(?:\\d{1,2}(?:st|nd|rd|th)?,?\\s+)?$`, 'i')

/**
 * Runs that are never codes, blanked out (same length, so positions hold) before candidates are
 * looked for: URLs, e-mail addresses, ISO times and dates, clock times, phone numbers with a
 * country code or an area code in parentheses, amounts with a currency sign.
 */
const MASKS = [
  /\b(?:https?:\/\/|www\.)\S+/gi,
  // Only from the start of a run (the lookbehind): otherwise a long word without an @ costs O(n²).
  /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g,
  /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/g,
  /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?/gi,
  /\+\d{1,3}[\s.-]?(?:\(\d+\)[\s.-]?)?\d[\d\s.-]{5,}\d/g,
  /\(\d{2,5}\)[\s.-]?\d[\d\s.-]{4,}\d/g,
  /[$€£¥₹]\s?\d[\d,.\s]*/g,
]

/** A candidate: digits in one or two groups, or uppercase letters and digits. */
const CANDIDATE = /(?<![A-Z0-9])\d{2,}(?:[ -]\d{2,})*(?![A-Z0-9])|[A-Z0-9]{4,10}/g

const blank = (text: string) => text.replace(/[^\n]/g, ' ')

function masked(text: string): string {
  let out = text
  for (const mask of MASKS) out = out.replace(mask, blank)
  return out
}

/** What may touch a code on each side: space, the start or end, or light punctuation. */
const BEFORE_OK = /[\s("'[*:]/
const AFTER_OK = /[\s)"'\].,;:!?*]/

/** The candidate at `index` as a code, or null when it is none (its shape, its edges, its neighbours). */
function codeAt(text: string, index: number, raw: string): string | null {
  const before = text[index - 1]
  const end = index + raw.length
  const after = text[end]
  if (before !== undefined && !BEFORE_OK.test(before)) return null
  if (after !== undefined && !AFTER_OK.test(after)) return null
  // `1234.56`, `1,234`: a decimal or thousands separator followed by a digit makes an amount.
  if ((after === '.' || after === ',') && /\d/.test(text[end + 1] ?? '')) return null
  const value = raw.replace(/[ -]/g, '')
  if (value.length < 4 || value.length > 10) return null
  const digitsOnly = /^\d+$/.test(value)
  // More than two groups is a phone number or a date, not a code someone types.
  if (digitsOnly && raw.split(/[ -]/).length > 2) return null
  if (!digitsOnly && !(/\d/.test(value) && /[A-Z]/.test(value))) return null
  const head = text.slice(Math.max(0, index - 60), index)
  const tail = text.slice(end, end + 8)
  if (NUMBER_LABEL.test(head)) return null
  if (CURRENCY.test(/([A-Z]{3})\s*$/.exec(head)?.[1] ?? '')) return null
  if (CURRENCY.test(/^\s*([A-Z]{3})\b/.exec(tail)?.[1] ?? '')) return null
  if (digitsOnly && value.length === 4 && AFTER_MONTH.test(head)) return null
  if (/^\s*%/.test(tail)) return null
  return value
}

/** Whether the candidate is all there is on its line (light punctuation around it allowed). */
function aloneOnLine(text: string, index: number, raw: string): boolean {
  const start = text.lastIndexOf('\n', index - 1) + 1
  const next = text.indexOf('\n', index)
  const end = next === -1 ? text.length : next
  // A long line cannot hold a code alone: no need to look at it whole.
  if (end - start > raw.length + 40) return false
  return text.slice(start, end).replace(/[\s*"'`:]/g, '') === raw.replace(/[\s*"'`:]/g, '')
}

/** Where each sentence starts, in order (0 first). */
function sentenceStarts(text: string): number[] {
  const starts = [0]
  for (const m of text.matchAll(SENTENCE_END)) starts.push(m.index + m[0].length)
  return starts
}

/**
 * The one-time codes of a text part, in order, without repeats.
 *
 * @example
 * codesIn('Your verification code is 482 913.\nOrder #104223, total $1,234.00.') // ['482913']
 * codesIn('Sign in with this code:\n\n  A7K2P9\n')                              // ['A7K2P9']
 */
export function codesIn(text: string): string[] {
  const codes: string[] = []
  const source = masked(text)
  const starts = sentenceStarts(source)
  // Candidates come in order: the sentence each is in only moves forward (one pass, not one per candidate).
  let sentence = 0
  for (const match of source.matchAll(CANDIDATE)) {
    const code = codeAt(source, match.index, match[0])
    if (code === null || codes.includes(code)) continue
    while (sentence + 1 < starts.length && starts[sentence + 1]! <= match.index) sentence++
    const head = source.slice(starts[sentence]!, match.index)
    if (aloneOnLine(source, match.index, match[0]) || CODE_WORD.test(head)) codes.push(code)
  }
  return codes
}
