import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * The modules a bundle of scripts/bundle.js was built from, as absolute paths: rolldown marks
 * each with a `// <path>` line, relative to the bundle's folder.
 */
export function modulesInBundle(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^\/\/ (\S+\.[cm]?js)$/gm)].map((m) =>
    resolve(dirname(file), m[1]!),
  )
}
