/**
 * sendbox's programmatic API, for test suites that run the sandbox in-process:
 *
 *   import { startSendbox } from 'sendbox'
 *   const sandbox = await startSendbox({ port: 0, memory: true })
 */
export { startSendbox, StartError, type Sendbox } from './server/index.js'
export { ConfigError, type SendboxOptions, type SendboxConfig } from './config.js'
export { WaitTimeoutError, type WaitOptions } from './inspector/wait.js'
export type { Fault, FaultInput, FaultMatch, FaultStatus } from './inspector/faults.js'
export type { MessageRecord, MessageFilter, Address, Warning } from './store/types.js'
