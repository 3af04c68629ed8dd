/**
 * The email checks, loaded at their first use. The server's routes import this module rather
 * than `./index.js`: the checks stand on css-select, colord and @adobe/css-tools, which no
 * request but a check needs, so a start no longer compiles them before the port opens (24 of the
 * 276 modules a `serve --memory` loaded before its ready line).
 */
import type { CheckInput, CheckReport } from './types.js'

/**
 * Runs every check on one rendered email (see `./index.js`), loading them the first time.
 *
 * @example
 * const report = await checkEmail({ html: '<p>Hi</p>', text: 'Hi' })
 */
export async function checkEmail(input: CheckInput): Promise<CheckReport> {
  const checks = await import('./index.js')
  return checks.checkEmail(input)
}
