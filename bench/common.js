// What the benches share: the send every load makes (the order-receipt example, a layout, a
// partial and a loop, with its default fixture) and the median of a run's rounds.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const SLUG = 'order-receipt'

/**
 * The body and headers of one POST /messages of the receipt, under a sandbox token of the bench's own.
 *
 * @example
 * const { body, headers } = receiptSend('sandbox_bench_0123456789')
 */
export function receiptSend(token) {
  const variables = JSON.parse(readFileSync(join(ROOT, 'fixtures', SLUG, 'default.json'), 'utf8'))
  const body = JSON.stringify({
    template: SLUG,
    from: 'Acme Shop <shop@acme.test>',
    to: ['Ada Lovelace <ada@example.com>'],
    subject: 'Your receipt',
    templateVariables: variables,
  })
  return { body, headers: { 'content-type': 'application/json', authorization: `token ${token}` } }
}

/** The middle figure (the upper one of an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
