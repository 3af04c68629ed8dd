import type { FlagSpec } from './flags.js'

/** A positional argument, for the usage line and its own section. */
export interface PositionalSpec {
  description: string
  required?: boolean
}

/**
 * `--help` text for a command, from the same flag table the parser reads: plain text (no colour
 * codes in a pipe), one line per flag with its default and environment variable.
 *
 * @example
 * usage('sendbox render', 'Print a rendered template.', renderFlags, { slug: { description: 'The template', required: true } })
 */
export function usage(
  name: string,
  description: string,
  flags: Record<string, FlagSpec>,
  positionals: Record<string, PositionalSpec> = {},
): string {
  const args = Object.entries(positionals)
  const usageLine = [
    name,
    '[flags]',
    ...args.map(([arg, spec]) => (spec.required ? `<${arg}>` : `[${arg}]`)),
  ].join(' ')
  const rows = Object.entries(flags).map(([flag, spec]) => {
    const long = spec.type === 'boolean' ? `--${flag}` : `--${flag} <${spec.valueHint ?? 'value'}>`
    const left = spec.short ? `-${spec.short}, ${long}` : long
    const dflt = spec.default !== undefined ? ` (default: ${spec.default})` : ''
    const env = spec.env ? ` [env ${spec.env}]` : ''
    return [left, `${spec.description}${dflt}${env}`] as const
  })
  const width = Math.max(
    ...rows.map(([left]) => left.length),
    ...args.map(([arg]) => arg.length + 2),
  )
  const lines = [description, '', `Usage: ${usageLine}`, '']
  if (args.length)
    lines.push(
      'Arguments:',
      ...args.map(
        ([arg, spec]) =>
          `  ${`<${arg}>`.padEnd(width)}  ${spec.description}${spec.required ? ' (required)' : ''}`,
      ),
      '',
    )
  lines.push('Flags:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`))
  return lines.join('\n')
}
