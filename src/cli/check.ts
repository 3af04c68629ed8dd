import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { shownPath } from '../lib/paths.js'
import { checkEmail } from '../checks/index.js'
import { ConfigError, resolveConfig } from '../config.js'
import {
  createTemplateCatalog,
  exampleVariables,
  renderMessage,
  snapshotClock,
  type TemplateFailure,
} from '../templates/index.js'
import { lineColumn } from '../lib/json.js'
import type { RenderClock, Template, TemplateCatalog } from '../templates/types.js'
import type { Problem, RenderRule } from './check-types.js'
import { booleanFlag, checkOnlyFlags, type FlagSpec, parseFlags, serveFlags } from './flags.js'
import { TemplateSources } from './template-places.js'
import { usage } from './usage.js'
import { isCi, type SnapshotWrites, snapshotRun, writeLines } from './check-snapshots.js'
import { shortDiff } from '../core/snapshot-diff.js'
import { findBrowser, visualCheck, visualThreshold } from './visual.js'
import { type CaseSpamScore, spamChecks, spamOptions } from './check-spam.js'

/**
 * `sendbox check`: parse every template and render it with each fixture case (or check its
 * declared variables when it has none). One line per problem, `file:line:column  code  message`,
 * then a summary on stderr; exit 1 when there is an error, 0 otherwise. Made for CI.
 *
 * Problems carry a severity: errors fail the check, warnings are reported and exit 0. More checks
 * (of the rendered HTML, say) plug in as `RenderRule`s and add to the same list.
 */

export type { Problem, RenderedCase, RenderRule, Severity } from './check-types.js'

export interface CheckReport {
  problems: Problem[]
  /** Templates checked. */
  templates: number
  /**
   * Cases rendered: each fixture case, and the front-matter examples of a template without
   * fixtures (its `default` case in the snapshot folder), as many as the snapshots written.
   */
  cases: number
  /** Slugs of the templates with at least one error. */
  failing: string[]
  /** With `--spamassassin`: each case's SpamAssassin score (check-spam.ts). */
  spam?: CaseSpamScore[]
}

export interface CheckOptions {
  /** Rules run on every successful render (none by default). */
  rules?: RenderRule[]
  /** Render on this clock (snapshots: a fixed one) instead of the real one. */
  clock?: RenderClock
}

/** Where a JSON error is: from "(line 2 column 5)" or "at position 17" in Node's message. */
async function jsonErrorPosition(
  file: string,
  message: string,
): Promise<{ line: number; column: number }> {
  const lc = /line (\d+) column (\d+)/.exec(message)
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) }
  const at = /position (\d+)/.exec(message)
  if (at) {
    try {
      return lineColumn(await readFile(file, 'utf8'), Number(at[1]))
    } catch {
      // Unreadable: fall through to the start of the file.
    }
  }
  return { line: 1, column: 1 }
}

/** The first use of `name` inside a Liquid tag of the template file, else its first line. */
async function firstUse(
  template: Template,
  name: string,
): Promise<{ line: number; column: number }> {
  let source: string
  try {
    source = await readFile(template.file, 'utf8')
  } catch {
    return { line: 1, column: 1 }
  }
  const bodyStart = Math.max(0, source.lastIndexOf(template.body))
  const word = new RegExp(
    `(?<![\\w.$'"-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$-])`,
  )
  const tags = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g
  tags.lastIndex = bodyStart
  for (let tag = tags.exec(source); tag; tag = tags.exec(source)) {
    const hit = word.exec(tag[0])
    if (hit) return lineColumn(source, tag.index + hit.index)
  }
  return { line: 1, column: 1 }
}

const topLevel = (variable: string) => variable.split(/[.[]/)[0]!

/** What a check of a catalog gathers as it goes, template by template. */
interface CatalogRun {
  catalog: TemplateCatalog
  options: CheckOptions
  problems: Problem[]
  /** Slugs of the templates with at least one error. */
  failing: Set<string>
  /** The template being checked. */
  current: string
  cases: number
}

type Place = { line: number; column: number }
const START: Place = { line: 1, column: 1 }

function error(run: CatalogRun, file: string, at: Place, code: string, message: string): void {
  run.failing.add(run.current)
  run.problems.push({ file, line: at.line, column: at.column, code, message, severity: 'error' })
}

function warning(run: CatalogRun, file: string, at: Place, code: string, message: string): void {
  run.problems.push({ file, line: at.line, column: at.column, code, message, severity: 'warning' })
}

const inTemplates = (run: CatalogRun, file: string) => path.resolve(run.catalog.templatesDir, file)

/**
 * Checks every template of a catalog. Files in the problems are absolute.
 *
 * @example
 * const report = await checkCatalog(catalog, { rules: [emailRule], clock: snapshotClock() })
 * report.failing // ['welcome']
 */
export async function checkCatalog(
  catalog: TemplateCatalog,
  options: CheckOptions = {},
): Promise<CheckReport> {
  const run: CatalogRun = {
    catalog,
    options,
    problems: [],
    failing: new Set(),
    current: '',
    cases: 0,
  }
  const templates = catalog.list()
  for (const summary of templates) {
    run.current = summary.slug
    await checkTemplate(run, summary.slug)
  }
  return {
    problems: run.problems,
    templates: templates.length,
    cases: run.cases,
    failing: [...run.failing],
  }
}

/** One template: each fixture case rendered, or, without fixtures, its front matter's examples. */
async function checkTemplate(run: CatalogRun, slug: string): Promise<void> {
  const lookup = run.catalog.lookup(slug)
  if (!lookup.ok) {
    if (lookup.reason === 'invalid') {
      const { file, line, column, message } = lookup.error
      const own = path.basename(file).startsWith(`${slug}.`) && !file.includes('/')
      error(
        run,
        inTemplates(run, file),
        { line, column },
        'template_invalid',
        own ? message : `${message} (used by the template "${slug}")`,
      )
    }
    return
  }
  const template = lookup.template
  const fixtures = run.catalog.fixtures(template.slug)
  run.cases += fixtures.length
  if (fixtures.length === 0) return checkWithoutFixture(run, template)
  for (const fixture of fixtures) {
    if (!fixture.variables) {
      const message = fixture.error ?? 'The fixture is not usable.'
      error(
        run,
        fixture.file,
        await jsonErrorPosition(fixture.file, message),
        'fixture_invalid',
        `${message.replace(/\.$/, '')} (the fixture case "${fixture.name}" of "${template.slug}").`,
      )
      continue
    }
    await renderCase(run, template, fixture.variables, fixture.name, fixture.file)
  }
}

/** No fixture: the front matter must declare what the template needs; its examples render. */
async function checkWithoutFixture(run: CatalogRun, template: Template): Promise<void> {
  const fixtureFile = path.join(run.catalog.fixturesDir, `${template.slug}.json`)
  let undeclared = false
  for (const variable of template.requiredPaths) {
    if (template.declared[topLevel(variable)] !== undefined) continue
    undeclared = true
    error(
      run,
      template.file,
      await firstUse(template, topLevel(variable)),
      'undeclared_variable',
      `"${variable}" is required by the template "${template.slug}", which has no fixture, and its front matter does not declare "${topLevel(variable)}": declare it under variables: (with an example), or add ${path.relative(process.cwd(), fixtureFile) || fixtureFile}.`,
    )
  }
  if (undeclared) return
  const needed = new Set(template.requiredPaths.map(topLevel))
  const examples = exampleVariables(template)
  if ([...needed].every((name) => name in examples)) {
    run.cases += 1
    await renderCase(run, template, examples, null, template.file)
  }
}

/** Renders non-leniently; reports what fails. `where` is the file missing variables point at. */
async function renderCase(
  run: CatalogRun,
  template: Template,
  variables: Record<string, unknown>,
  caseName: string | null,
  where: string,
): Promise<void> {
  const source = caseName === null ? 'the front-matter examples' : `the fixture case "${caseName}"`
  const outcome = renderMessage(run.catalog, template.slug, variables, {
    lenient: false,
    clock: run.options.clock,
  })
  if (!outcome.ok) {
    const sets = caseName === null ? 'do not set' : 'does not set'
    return renderFailed(run, template, outcome.failure, { source, sets }, where)
  }
  const { rendered } = outcome
  for (const w of rendered.warnings) {
    if (w.code === 'unused_variable' && w.variable)
      warning(
        run,
        where,
        START,
        'unused_variable',
        `"${w.variable}" is set by ${source} but the template "${template.slug}" never uses it.`,
      )
  }
  for (const rule of run.options.rules ?? []) {
    const found = await rule({
      template,
      caseName,
      source: where,
      variables,
      html: rendered.html,
      text: rendered.text,
    })
    for (const problem of found) {
      if (problem.severity === 'error') run.failing.add(run.current)
      run.problems.push(problem)
    }
  }
}

/** A case that did not render: the variables it misses, or where the template failed. */
function renderFailed(
  run: CatalogRun,
  template: Template,
  failure: TemplateFailure,
  { source, sets }: { source: string; sets: string },
  where: string,
): void {
  if (failure.code === 'missing_variables') {
    for (const variable of failure.missing)
      error(
        run,
        where,
        START,
        'missing_variables',
        `"${variable}" is required by the template "${template.slug}" but ${source} ${sets} it.`,
      )
  } else if (failure.code !== 'template_not_found') {
    const { file, line, column, message } = failure.error
    error(
      run,
      file ? inTemplates(run, file) : template.file,
      { line: line || 1, column: column || 1 },
      failure.code,
      `${message} (the template "${template.slug}" with ${source})`,
    )
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** Lines of a diff the console shows under a problem; the rest is counted (--json has it all). */
const DIFF_LINES = 30

/**
 * `file:line:column  code  message` (warnings say so before the message), and a diff under it
 * indented by four spaces, cut at 30 lines, when the problem has one.
 */
export function formatProblem(problem: Problem): string {
  const line = `${problem.file}:${problem.line}:${problem.column}  ${problem.code}  ${problem.severity === 'warning' ? 'warning: ' : ''}${problem.message}`
  if (!problem.diff) return line
  const diff = shortDiff(problem.diff, DIFF_LINES)
  return [line, ...diff.split('\n').map((l) => `    ${l}`)].join('\n')
}

/** `✔ 3 templates, 4 cases: no problems` or `✖ 2 problems in 1 template`. */
export function summarize(report: CheckReport): string {
  const errors = report.problems.filter((p) => p.severity === 'error').length
  const warnings = report.problems.length - errors
  const andWarnings = warnings ? `, and ${plural(warnings, 'warning')}` : ''
  if (errors > 0)
    return `✖ ${plural(errors, 'problem')}${report.failing.length ? ` in ${plural(report.failing.length, 'template')}` : ''}${andWarnings}`
  return `✔ ${plural(report.templates, 'template')}, ${plural(report.cases, 'case')}: ${warnings ? `no errors, ${plural(warnings, 'warning')}` : 'no problems'}`
}

const checkFlags = {
  templates: serveFlags.templates,
  fixtures: serveFlags.fixtures,
  snapshots: {
    ...serveFlags.snapshots,
    description:
      'Compare every render with its snapshot here when the folder exists (or is named); write missing ones, except under CI',
  },
  'snapshot-now': serveFlags['snapshot-now'],
  update: {
    type: 'boolean',
    env: '',
    short: 'u',
    description: 'Write every snapshot anew and remove obsolete ones (after review)',
  },
  visual: {
    type: 'boolean',
    env: '',
    description:
      'Screenshot each case in Chromium (375 and 600 px, light and dark) and compare with PNG snapshots',
  },
  browser: {
    type: 'string',
    env: 'SENDBOX_BROWSER',
    valueHint: 'path',
    description:
      'The Chromium of --visual (default: chromium, chromium-browser, google-chrome on the PATH)',
  },
  'visual-threshold': {
    type: 'string',
    env: '',
    default: '0',
    valueHint: 'share',
    description:
      'Share of the pixels that may differ before a screenshot is visual_changed (0.001 = 0.1%)',
  },
  json: {
    type: 'boolean',
    env: '',
    description: 'Print { problems, templates, cases } as JSON on stdout',
  },
  'email-checks': {
    type: 'boolean',
    env: '',
    default: 'true',
    description:
      'Check each render as an email too: size, images, links, text, accessibility (--no-email-checks to skip)',
  },
  spamassassin: {
    ...serveFlags.spamassassin,
    description:
      'Score every case with this SpamAssassin spamd (host:port); a case it calls spam is a warning, --json has every score',
  },
  'fail-on-spam': {
    type: 'string',
    env: 'SENDBOX_FAIL_ON_SPAM',
    valueHint: 'score',
    description: 'With --spamassassin: a case scored above this is an error (exit 1)',
  },
  ...checkOnlyFlags,
} as const satisfies Record<string, FlagSpec>

/**
 * --templates/--fixtures with their SENDBOX_* variables, resolved like `serve` does. Unlike
 * `serve` (which waits for a missing folder to appear), `check` and `render` need the templates
 * now: a templates folder named explicitly that does not exist is bad usage, unless `mustExist`
 * is false (`init` creates it).
 */
export function folderOptions(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  { mustExist = true } = {},
): { templatesDir: string; fixturesDir: string } {
  const pick = (flag: 'templates' | 'fixtures') =>
    (values[flag] as string | undefined) ?? env[serveFlags[flag].env]
  const config = resolveConfig({
    templates: pick('templates'),
    fixtures: pick('fixtures'),
    memory: true,
  })
  if (mustExist && pick('templates') !== undefined && !existsSync(config.templatesDir))
    throw new ConfigError('--templates', `the folder ${config.templatesDir} does not exist`)
  return { templatesDir: config.templatesDir, fixturesDir: config.fixturesDir }
}

export interface EmailCheckOptions {
  /** The templates folder: where a finding's element is looked up in the layout and partials. */
  templatesDir?: string
  /** Accessibility findings are errors, not warnings (`--fail-on-accessibility`). */
  failOnAccessibility?: boolean
}

/**
 * The email checks (src/checks) as a rule: errors and warnings only, each reported once per
 * template even when several fixture cases render the same problem. A finding about an element
 * points at its start tag in the template, its layout or a partial when the tag is written there
 * as rendered (template-places.ts); otherwise at the template, naming the rendered line.
 *
 * @example
 * await checkCatalog(catalog, { rules: [emailChecks({ templatesDir, failOnAccessibility: true })] })
 */
export function emailChecks(options: EmailCheckOptions = {}): RenderRule {
  const seen = new Set<string>()
  const sources = options.templatesDir ? new TemplateSources(options.templatesDir) : null
  return async ({ template, html, text }) => {
    const report = await checkEmail({ html, text })
    const problems: Problem[] = []
    for (const finding of report.findings) {
      if (finding.severity === 'info') continue
      const { line, column } = finding
      const mapped =
        sources && line !== null && column !== null
          ? await sources.place(template, html, line, column)
          : null
      const where =
        line === null ? '' : ` (rendered HTML line ${line}${column ? `, column ${column}` : ''})`
      const at = mapped ?? { file: template.file, line: 1, column: 1 }
      const key = `${template.slug}\0${finding.code}\0${finding.message}\0${mapped ? `${at.file}:${at.line}:${at.column}` : where}`
      if (seen.has(key)) continue
      seen.add(key)
      const severity =
        finding.check === 'accessibility' && options.failOnAccessibility
          ? 'error'
          : finding.severity
      problems.push({
        ...at,
        code: finding.code,
        message: `${finding.message}${where} ${finding.fix}`,
        severity,
      })
    }
    return problems
  }
}

/**
 * `sendbox check [flags]`: the exit code (1 when a problem is an error).
 *
 * @example
 * process.exitCode = await check(['--templates', 'emails', '--json'], process.env, false)
 */
export async function check(
  argv: string[],
  env: NodeJS.ProcessEnv,
  help: boolean,
): Promise<number> {
  if (help) {
    process.stdout.write(
      `${usage('sendbox check', 'Parse every template and render it with each fixture case (or check its declared variables when it has none), and compare each render with its snapshot when there is a snapshot folder. Exit 1 when there is a problem.', checkFlags)}\n`,
    )
    return 0
  }
  const { values, positionals } = parseFlags(argv, checkFlags)
  if (positionals.length)
    throw new ConfigError(
      positionals[0]!,
      'unexpected argument; sendbox check takes only flags (see sendbox check --help).',
    )
  const folders = folderOptions(values, env)
  const { report, writes } = await runCheck(values, env, folders)
  if (report.templates === 0) report.problems.push(noTemplates(folders.templatesDir))
  return printReport(report, writes, values.json === true)
}

/** The check itself: every template rendered, its rules run, snapshots compared and written. */
async function runCheck(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  { templatesDir, fixturesDir }: { templatesDir: string; fixturesDir: string },
): Promise<{ report: CheckReport; writes: SnapshotWrites | undefined }> {
  const visual = values.visual === true
  // Before any render: no browser is bad usage, said at once.
  const browser = visual ? findBrowser(values.browser as string | undefined, env) : null
  const threshold = visualThreshold(values['visual-threshold'] as string | undefined)
  const snapshotOptions = snapshotFolder(values, env, visual, templatesDir)
  const catalog = await createTemplateCatalog({
    templatesDir,
    fixturesDir,
    watch: false,
    warn: () => {},
  })
  const snapshots = snapshotOptions && snapshotRun({ ...snapshotOptions, ci: isCi(env) })
  const spamOptionsGiven = spamOptions(values, env)
  const spam = spamOptionsGiven && spamChecks(spamOptionsGiven)
  // Read only with the email checks on (an unreadable SENDBOX_ variable is no matter without).
  const emailRule = () =>
    emailChecks({
      templatesDir,
      failOnAccessibility: booleanFlag(values, env, 'fail-on-accessibility', checkFlags) ?? false,
    })
  try {
    const report = await checkCatalog(catalog, {
      rules: [
        ...(values['no-email-checks'] ? [] : [emailRule()]),
        ...(snapshots ? [snapshots.rule] : []),
        ...(spam ? [spam.rule] : []),
      ],
      ...(snapshotOptions ? { clock: snapshotOptions.clock } : {}),
    })
    if (spam) report.spam = spam.scores
    if (snapshots) report.problems.push(...(await snapshots.finish(catalog)))
    if (snapshots && browser)
      report.problems.push(
        ...(await visualCheck(snapshots.rendered.values(), {
          dir: snapshots.dir,
          browser,
          update: snapshotOptions.update,
          ci: isCi(env),
          threshold,
          writes: snapshots.writes,
        })),
      )
    return { report, writes: snapshots?.writes }
  } finally {
    await catalog.close()
  }
}

/** A check of no template fails: the folder is missing or empty. */
function noTemplates(templatesDir: string): Problem {
  const why = existsSync(templatesDir)
    ? `There are no templates in ${templatesDir} (<slug>.liquid or <slug>.html)`
    : `The templates folder ${templatesDir} does not exist`
  return {
    file: templatesDir,
    line: 1,
    column: 1,
    code: 'no_templates',
    message: `${why}; create a starter with \`npx sendbox init\`, or point --templates at your templates folder.`,
    severity: 'error',
  }
}

/** The problems on stdout (lines, or JSON), the snapshots written and the summary on stderr. */
function printReport(
  report: CheckReport,
  writes: SnapshotWrites | undefined,
  json: boolean,
): number {
  const cwd = process.cwd()
  const problems = report.problems.map((p) => ({
    ...p,
    // The form the inbox and the console show a place in too (src/lib/paths.ts).
    file: shownPath(p.file, cwd),
  }))
  if (json)
    process.stdout.write(
      `${JSON.stringify({ problems, templates: report.templates, cases: report.cases, ...(writes ? { snapshots: writes } : {}), ...(report.spam ? { spam: report.spam } : {}) }, null, 2)}\n`,
    )
  else for (const problem of problems) process.stdout.write(`${formatProblem(problem)}\n`)
  const written = writes ? writeLines(writes) : []
  if (written.length) process.stderr.write(`Snapshots:\n${written.join('\n')}\n`)
  process.stderr.write(`${summarize({ ...report, problems })}\n`)
  return problems.some((p) => p.severity === 'error') ? 1 : 0
}

/**
 * The snapshot folder of a check, or null when there is none to compare with: the folder is
 * compared with when it exists, when it is named (`--snapshots`, `SENDBOX_SNAPSHOTS`: a CI
 * checkout that lost it then fails instead of passing), and written with `--update` or `--visual`.
 */
function snapshotFolder(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  visual: boolean,
  templatesDir: string,
): { dir: string; update: boolean; clock: RenderClock } | null {
  const named = (values.snapshots as string | undefined) ?? env[serveFlags.snapshots.env]
  const now = (values['snapshot-now'] as string | undefined) ?? env[serveFlags['snapshot-now'].env]
  // The templates folder too: by default the snapshots are beside it.
  const config = resolveConfig({
    memory: true,
    templates: templatesDir,
    ...(named !== undefined ? { snapshots: named } : {}),
    ...(now !== undefined ? { snapshotNow: now } : {}),
  })
  const update = values.update === true
  if (!update && !visual && named === undefined && !existsSync(config.snapshotsDir)) return null
  return { dir: config.snapshotsDir, update, clock: snapshotClock(config.snapshotNow) }
}
