#!/usr/bin/env node
// The CLI's CommonJS bundle, each of its files with the V8 code cache the build keeps beside it
// (src/lib/code-cache.ts): V8 compiles less of what a start and its first send run.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { createCodeCacheLoader } = require('../dist/sendbox-code-cache.cjs')
const { exitWhenWritten, main } = createCodeCacheLoader().require(
  fileURLToPath(new URL('../dist/sendbox-cli.cjs', import.meta.url)),
)

main().then(
  // Not process.exit(): what stdout and stderr still hold for a pipe would be lost.
  exitWhenWritten,
  (error) => {
    console.error(error)
    exitWhenWritten(1)
  },
)
