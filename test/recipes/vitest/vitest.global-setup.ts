import { startSendbox, type Sendbox } from 'sendbox'
import type { TestProject } from 'vitest/node'

let sandbox: Sendbox

// One sandbox for the whole run, on a free port, keeping nothing on disk.
export async function setup(project: TestProject) {
  sandbox = await startSendbox({ port: 0, memory: true, templates: './templates' })
  project.provide('sendbox', { url: sandbox.url, token: sandbox.token })
  // For application code that reads its settings from the environment:
  process.env.MAIL_API_URL = sandbox.url
  process.env.MAIL_API_TOKEN = sandbox.token
}

export async function teardown() {
  await sandbox?.close()
}

declare module 'vitest' {
  export interface ProvidedContext {
    sendbox: { url: string; token: string }
  }
}
