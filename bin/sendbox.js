#!/usr/bin/env node
// The CLI's CommonJS bundle, each of its files compiled with the V8 code cache the build keeps
// beside it (src/lib/code-cache.ts): V8 compiles less of what a start and its first send run.
// Without caches this V8 takes (another Node version, V8 flags in NODE_OPTIONS), its ES modules:
// run without a cache, the CommonJS build took 1.07x their CPU until a first send answered.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../dist/sendbox-cli.cjs', import.meta.url))
const { codeCacheFile, createCodeCacheLoader, v8Stamp } = createRequire(import.meta.url)(
  '../dist/sendbox-code-cache.cjs',
)
const stamp = v8Stamp()
const { exitWhenWritten, main } = existsSync(codeCacheFile(cli, stamp))
  ? createCodeCacheLoader(stamp).require(cli)
  : await import('../dist/sendbox-cli.js')

main().then(
  // Not process.exit(): what stdout and stderr still hold for a pipe would be lost.
  exitWhenWritten,
  (error) => {
    console.error(error)
    exitWhenWritten(1)
  },
)
