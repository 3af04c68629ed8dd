import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { ConfigError } from '../config.js'
import { folderOptions } from './check.js'
import { type FlagSpec, parseFlags, serveFlags } from './flags.js'
import { usage } from './usage.js'

/**
 * `sendbox init`: a starter for a project that has no templates yet — a layout, a partial, one
 * template and its fixture, which `sendbox check` passes. It never overwrites: a file that
 * exists is kept and named, so running it twice (or in a project that has some of these files)
 * is safe.
 */

const LAYOUT = `{%- comment -%}
  The shared email skeleton. A template uses it with
  {% raw %}{% layout "layouts/base", title: "…", preheader: "…" %}{% endraw %}
  and fills {% raw %}{% block content %}{% endblock %}{% endraw %}. Tables and inline styles,
  because that is what email clients render reliably.
{%- endcomment -%}
<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta name="supported-color-schemes" content="light dark">
    <title>{{ title | default: "A message" }}</title>
    <style>
      @media (prefers-color-scheme: dark) {
        .page { background-color: #111418 !important; }
        .card { background-color: #1d2127 !important; color: #e4e7eb !important; }
      }
    </style>
  </head>
  <body class="page" style="margin:0;padding:0;background-color:#f4f5f7;">
    <div class="preheader" style="display:none;max-height:0;overflow:hidden;opacity:0;">{{ preheader | default: "" }}</div>
    <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
      <tr>
        <td align="center" style="padding:24px 12px;">
          <table role="presentation" class="card" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;border-radius:8px;font-family:Helvetica,Arial,sans-serif;font-size:16px;line-height:24px;color:#1f2933;">
            <tr>
              <td style="padding:32px;">
                {% block content %}{% endblock %}
              </td>
            </tr>
          </table>
        </td>
      </tr>
    </table>
  </body>
</html>
`

const BUTTON = `{%- comment -%}
  A call-to-action button that works in every email client (a padded table cell, not CSS only).
  Parameters: url, label.
{%- endcomment -%}
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:24px 0;">
  <tr>
    <td align="center" bgcolor="#3b5bdb" style="border-radius:6px;">
      <a href="{{ url }}" target="_blank" style="display:inline-block;padding:12px 24px;font-weight:bold;color:#ffffff;text-decoration:none;">{{ label }}</a>
    </td>
  </tr>
</table>
`

const TEMPLATE = `---
description: A first template. Copy it, rename it, make it yours.
variables:
  name:
    description: Who it is for.
    example: Ada
  actionUrl:
    description: Where the button leads.
    example: https://example.com/start
---
{%- layout "layouts/base", title: "Hello", preheader: "A first message from your sandbox." -%}
{%- block content -%}
<h1 style="margin:0 0 16px 0;font-size:24px;line-height:32px;">Hello, {{ name }}!</h1>
<p style="margin:0 0 16px 0;">This message was rendered from templates/hello.liquid with the variables you sent.</p>
{% render "partials/button", url: actionUrl, label: "Get started" %}
<p style="margin:0;">{{ signoff | default: "See you soon." }}</p>
{%- endblock -%}
`

const FIXTURE = `${JSON.stringify({ name: 'Ada', actionUrl: 'https://example.com/start' }, null, 2)}\n`

/** The starter, relative to the templates and fixtures folders. */
export const STARTER: ReadonlyArray<{
  folder: 'templates' | 'fixtures'
  file: string
  content: string
}> = [
  { folder: 'templates', file: 'layouts/base.liquid', content: LAYOUT },
  { folder: 'templates', file: 'partials/button.liquid', content: BUTTON },
  { folder: 'templates', file: 'hello.liquid', content: TEMPLATE },
  { folder: 'fixtures', file: 'hello.json', content: FIXTURE },
]

export interface InitResult {
  created: string[]
  kept: string[]
}

/**
 * Writes the starter into the two folders; existing files are kept, never overwritten (the
 * write itself refuses to replace a file, so a file that appears meanwhile is safe too).
 *
 * @example
 * await writeStarter({ templatesDir: '/app/templates', fixturesDir: '/app/fixtures' })
 * // → { created: ['/app/templates/layouts/base.liquid', …], kept: [] }
 */
export async function writeStarter(folders: {
  templatesDir: string
  fixturesDir: string
}): Promise<InitResult> {
  const result: InitResult = { created: [], kept: [] }
  for (const entry of STARTER) {
    const file = path.join(
      entry.folder === 'templates' ? folders.templatesDir : folders.fixturesDir,
      entry.file,
    )
    await mkdir(path.dirname(file), { recursive: true })
    try {
      await writeFile(file, entry.content, { flag: 'wx' })
      result.created.push(file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      result.kept.push(file)
    }
  }
  return result
}

const initFlags = {
  templates: serveFlags.templates,
  fixtures: serveFlags.fixtures,
} as const satisfies Record<string, FlagSpec>

export async function init(argv: string[], env: NodeJS.ProcessEnv, help: boolean): Promise<number> {
  if (help) {
    process.stdout.write(
      `${usage('sendbox init', 'Create templates/ and fixtures/ with a starter: a layout, a partial, one template and its fixture. Existing files are never overwritten.', initFlags)}\n`,
    )
    return 0
  }
  const { values, positionals } = parseFlags(argv, initFlags)
  if (positionals.length)
    throw new ConfigError(
      positionals[0]!,
      'unexpected argument; sendbox init takes only flags (see sendbox init --help).',
    )
  const result = await writeStarter(folderOptions(values, env, { mustExist: false }))
  const shown = (file: string) =>
    path.relative(process.cwd(), file).split(path.sep).join('/') || file
  for (const file of result.created) process.stdout.write(`created  ${shown(file)}\n`)
  for (const file of result.kept)
    process.stdout.write(`kept     ${shown(file)}  (it exists; not overwritten)\n`)
  process.stdout.write(
    result.created.length === 0
      ? '\nNothing to do: every starter file is already there.\n'
      : '\nNext: `npx sendbox` serves them (the inbox shows "hello"), `npx sendbox check` checks them.\n',
  )
  return 0
}
