/** Types of ready-line.js (plain JavaScript, so that bench/ loads it as is). */
import type { ChildProcess } from 'node:child_process'

export function readyLine(
  child: ChildProcess,
  pattern: RegExp,
  name: string,
): Promise<{ match: RegExpExecArray }>
