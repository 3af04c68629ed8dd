#!/usr/bin/env node
import { exitWhenWritten, main } from '../dist/sendbox-cli.js'

main().then(
  // Not process.exit(): what stdout and stderr still hold for a pipe would be lost.
  exitWhenWritten,
  (error) => {
    console.error(error)
    exitWhenWritten(1)
  },
)
