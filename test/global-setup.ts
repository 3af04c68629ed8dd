import { execFileSync } from 'node:child_process'

/** The CLI tests run bin/sendbox.js, which runs dist/: build it from the current sources first. */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' })
}
