#!/usr/bin/env node
import { main } from '../dist/sendbox-cli.js'

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
