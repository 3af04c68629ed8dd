import { defineCommand, renderUsage, type ArgsDef } from 'citty'
import type { FlagSpec } from './flags.js'

/** `--help` text for a command, rendered by citty from the same table the parser uses. */
export async function usage(name: string, description: string, flags: Record<string, FlagSpec>, positionals: ArgsDef = {}): Promise<string> {
  const args: ArgsDef = { ...positionals }
  for (const [flag, spec] of Object.entries(flags)) {
    const env = spec.env ? ` [env ${spec.env}]` : ''
    const dflt = spec.default !== undefined ? ` (default: ${spec.default})` : ''
    args[flag] = {
      type: spec.type,
      description: `${spec.description}${dflt}${env}`,
      ...(spec.valueHint ? { valueHint: spec.valueHint } : {}),
    }
  }
  return renderUsage(defineCommand({ meta: { name, description }, args }))
}
