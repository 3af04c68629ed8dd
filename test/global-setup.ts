import { execFileSync } from 'node:child_process'

/**
 * The CLI tests run bin/sendbox.js, which runs dist/, and the inbox serves its client from
 * dist/inbox/client/: build both from the current sources first.
 */
export default function setup(): void {
  for (const project of ['tsconfig.build.json', 'tsconfig.inbox.json']) {
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { stdio: 'inherit' })
  }
}
