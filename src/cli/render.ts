import { readFile } from 'node:fs/promises'
import { ConfigError } from '../config.js'
import {
  createTemplateCatalog,
  describeFailure,
  exampleVariables,
  lookupFailure,
  renderMessage,
} from '../templates/index.js'
import { isPlainObject } from '../lib/json.js'
import type { Template, TemplateCatalog } from '../templates/types.js'
import { folderOptions } from './check.js'
import { type FlagSpec, parseFlags, serveFlags } from './flags.js'
import { usage } from './usage.js'

/**
 * `sendbox render <slug>`: prints a template rendered (non-leniently, exactly as POST /messages
 * would) with a JSON file of variables, a fixture case, or by default the first fixture case, else
 * the front-matter examples. HTML on stdout, or the plain text with --text. Problems go to stderr
 * in the API's words, exit 1; bad usage exits 2.
 */

const renderFlags = {
  vars: {
    type: 'string',
    env: '',
    valueHint: 'file',
    description: 'A JSON file of template variables',
  },
  case: {
    type: 'string',
    env: '',
    valueHint: 'name',
    description: 'A fixture case (default: the first case, else front-matter examples)',
  },
  text: {
    type: 'boolean',
    env: '',
    description: 'Print the plain-text version instead of the HTML',
  },
  templates: serveFlags.templates,
  fixtures: serveFlags.fixtures,
} as const satisfies Record<string, FlagSpec>

/** A problem with the template or its variables: printed, exit 1. */
class RenderProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

async function readVariables(file: string): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new ConfigError(
      '--vars',
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    )
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new RenderProblem(
      'invalid_json',
      `${file} is not valid JSON: ${(error as Error).message}.`,
    )
  }
  if (!isPlainObject(value))
    throw new RenderProblem(
      'invalid_vars',
      `${file} must hold a JSON object of template variables.`,
    )
  return value
}

function variablesFromFixtures(
  catalog: TemplateCatalog,
  template: Template,
  caseName: string | undefined,
): Record<string, unknown> {
  const cases = catalog.fixtures(template.slug)
  const found = caseName === undefined ? cases[0] : cases.find((c) => c.name === caseName)
  if (caseName !== undefined && !found) {
    throw new RenderProblem(
      'fixture_not_found',
      `The template "${template.slug}" has no fixture case "${caseName}"; it has ${cases.map((c) => `"${c.name}"`).join(', ') || 'none'}.`,
    )
  }
  if (found) {
    if (!found.variables)
      throw new RenderProblem(
        'fixture_invalid',
        `The fixture ${found.file} is not usable: ${found.error}`,
      )
    return found.variables
  }
  return exampleVariables(template)
}

function lookupTemplate(catalog: TemplateCatalog, slug: string): Template {
  const lookup = catalog.lookup(slug)
  if (lookup.ok) return lookup.template
  const failure = lookupFailure(slug, lookup)
  throw new RenderProblem(failure.code, describeFailure(failure))
}

export async function render(
  argv: string[],
  env: NodeJS.ProcessEnv,
  help: boolean,
): Promise<number> {
  if (help) {
    process.stdout.write(
      `${usage('sendbox render', 'Print a template rendered with a JSON file of variables or a fixture case.', renderFlags, { slug: { description: 'The template to render', required: true } })}\n`,
    )
    return 0
  }
  const { values, positionals } = parseFlags(argv, renderFlags)
  const [slug, ...extra] = positionals
  if (!slug)
    throw new ConfigError(
      '<slug>',
      'which template? Usage: sendbox render <slug> [--vars FILE | --case NAME] [--text]',
    )
  if (extra.length)
    throw new ConfigError(extra[0]!, 'unexpected argument; sendbox render takes one slug.')
  if (values.vars !== undefined && values.case !== undefined)
    throw new ConfigError('--vars', 'give either --vars or --case, not both.')
  const { templatesDir, fixturesDir } = folderOptions(values, env)

  const catalog = await createTemplateCatalog({
    templatesDir,
    fixturesDir,
    watch: false,
    warn: () => {},
  })
  try {
    const template = lookupTemplate(catalog, slug)
    const variables =
      values.vars !== undefined
        ? await readVariables(values.vars as string)
        : variablesFromFixtures(catalog, template, values.case as string | undefined)
    const outcome = renderMessage(catalog, slug, variables, { lenient: false })
    if (!outcome.ok) throw new RenderProblem(outcome.failure.code, describeFailure(outcome.failure))
    const { rendered } = outcome
    for (const warning of rendered.warnings)
      process.stderr.write(`sendbox render: warning: ${warning.message}\n`)
    const output = values.text ? rendered.text : rendered.html
    process.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
    return 0
  } catch (error) {
    if (!(error instanceof RenderProblem)) throw error
    process.stderr.write(`sendbox render: ${error.code}: ${error.message}\n`)
    return 1
  } finally {
    await catalog.close()
  }
}
