// Builds the corpus of real emails that CI runs (docs/checks.md, "The corpus of real emails")
// from npm packages, each an exact-version devDependency that npm-sources.json names:
//
//   node test/email-corpus/build-npm.mjs [OUT]
//
// OUT (by default node_modules/.cache/sendbox-email-corpus/, where corpus.js reads it) receives what build.mjs writes for the fetched corpus: OUT/<collection>/<name>.html for
// each email, OUT/licences/<owner>+<name>/ with each package's licence files, and
// OUT/SOURCES.json (npm-sources.json). Each email is made as its package makes it:
// - `html`: the file as the package ships it (Foundation for Emails' compiled templates, planer's
//   test emails), placeholders rendered with build.mjs's sample values;
// - `mailgen`: the package's own example script (examples/receipt.js…), run with each theme;
// - `freemarker`: Keycloak's email theme, its `msg("key", args…)` filled from
//   messages_en.properties with sample values, inside its layout (template.ftl);
// - `covalent-mjml`: the package's MJML templates compiled by its own MJML compiler;
// - `ecomplus`: E-Com Plus's EJS templates, each rendered by its package's own method (its Sass
//   compiled, its English dictionary) with the sample store, customer and order of
//   ecomplus-samples.json;
// - `function`: a function the package exports that returns an email's HTML (SuperTokens'
//   emails), called with the plain sample arguments the email's entry lists;
// - `sails-ejs`: the emails a new Sails app sends (EJS), rendered as its `sendTemplateEmail`
//   helper does (Node's `url` module and `sails.config.custom.baseUrl` in scope, inside the
//   email layout), with the sample values of SAILS_LOCALS;
// - `vendure`: Vendure's emails (Handlebars that writes MJML), made by the plugin's own
//   HandlebarsMjmlGenerator (its partials, helpers and MJML) with the sample variables of
//   vendure-samples.json, shaped as the plugin's handlers pass them;
// - `react-email`: React Email's starter emails (TSX), compiled by TypeScript and rendered by
//   React Email with the props each one previews with (its `PreviewProps`).
// A child process of its own (test/email-corpus/setup.ts runs it): the MJML compiler needs a
// `window` global, which the test runner's process should not get.
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runInNewContext, runInThisContext } from 'node:vm'
import { renderEmail } from './build.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const require = createRequire(join(HERE, '..', '..', 'package.json'))

/** Where the tests read the corpus of the npm packages: test/email-corpus/setup.ts builds it. */
export const NPM_CORPUS_DIR = join(
  HERE,
  '..',
  '..',
  'node_modules',
  '.cache',
  'sendbox-email-corpus',
)

/**
 * The folder an installed package is in: each is a devDependency of the repository, at the top
 * of its node_modules (not found through `require.resolve`: some export no package.json).
 */
const packageDir = (name) => join(HERE, '..', '..', 'node_modules', name)

/** One of mailgen's example scripts, run as is with `theme`: the HTML it writes to preview.html. */
function mailgen(dir, path, theme) {
  const Mailgen = require(dir)
  const written = {}
  const fakeRequire = (id) => {
    // A constructor that returns another object: `new` in the script gets that Mailgen.
    if (id === '../')
      return function ThemedMailgen(options) {
        return new Mailgen({ ...options, theme })
      }
    if (id === 'fs') return { writeFileSync: (file, data) => (written[file] = data) }
    return require(id)
  }
  runInNewContext(readFileSync(join(dir, path), 'utf8'), { require: fakeRequire, console })
  return written['preview.html']
}

/** Sample values for Keycloak's message arguments, by the expression that passes them. */
const KEYCLOAK_ARGS = [
  [/^link$/, 'https://example.com/realms/example/login-actions/action-token?key=1042'],
  [/^linkExpiration$/, '5'],
  [/^linkExpirationFormatter/, '5 minutes'],
  [/^realmName$/, 'Example'],
  [/^newEmail$/, 'ada@example.com'],
  [/^code$/, '104 242'],
  [/^event\.date$/, '28 November 2026 at 10:42'],
  [/^event\.ipAddress$/, '192.0.2.10'],
  [/^event\.getDetail/, 'password'],
  [/^identityProviderDisplayName$/, 'GitHub'],
  [/^identityProviderContext\.username$/, 'ada'],
  [/^requiredActionsText$/, 'Update Password, Verify Email'],
  [/^organization\.name$/, 'Example Ltd'],
  [/^firstName$/, 'Ada'],
  [/^lastName$/, 'Lovelace'],
]

/** Java's properties file (one `key=value` a line; `''` is a quote in MessageFormat). */
function properties(text) {
  const map = new Map()
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf('=')
    if (at > 0 && !line.startsWith('#')) map.set(line.slice(0, at).trim(), line.slice(at + 1))
  }
  return map
}

/** A Keycloak email template: its first `msg(…)` (the plain branch of an `#if`) in its layout. */
function freemarker(dir, path) {
  const source = readFileSync(join(dir, path), 'utf8')
  const messages = properties(
    readFileSync(join(dir, 'keycloak-theme/email/messages/messages_en.properties'), 'utf8'),
  )
  const call = /kcSanitize\(msg\("([^"]+)",\s*(.*)\)\)\?no_esc\}/.exec(
    source.split('<#else>').at(-1),
  )
  if (!call) throw new Error(`${path}: no msg(…) call`)
  const args = call[2].split(/,\s*(?![^(]*\))/).map((arg) => {
    const sample = KEYCLOAK_ARGS.find(([pattern]) => pattern.test(arg.trim()))
    if (!sample) throw new Error(`${path}: no sample value for ${arg}`)
    return sample[1]
  })
  const body = messages
    .get(call[1])
    .replace(/\{(\d+)\}/g, (_, n) => args[Number(n)])
    .replace(/''/g, "'")
  const layout = readFileSync(join(dir, 'keycloak-theme/email/html/template.ftl'), 'utf8')
  return layout.replace(/<#macro[^>]*>\n?|<\/#macro>\n?/g, '').replace('<#nested>', body)
}

/** One of Covalent's MJML templates, compiled by the package's own MJML (mjml-browser). */
async function covalent(dir, template) {
  globalThis.window ??= globalThis
  const api = await import(join(dir, 'index.mjs'))
  const found = api.getEmailTemplates().find((t) => t.name === template)
  if (!found) throw new Error(`@covalent/email-templates: no template "${template}"`)
  return api.getHtmlTemplate(found.content)
}

/** One of E-Com Plus's transactional emails, from its method with the sample objects. */
function ecomplus(dir, method) {
  const mails = require(dir)
  const { store, customer, message, order, cart, product } = JSON.parse(
    readFileSync(join(HERE, 'ecomplus-samples.json'), 'utf8'),
  )
  if (method === 'generic') return mails.generic(store, message, 'en_us')
  if (method === 'welcome') return mails.welcome(store, customer, 'en_us')
  const subject = { abandonedCart: cart, promo: product, stock: product }[method] ?? order
  return mails[method](store, customer, subject, 'en_us')
}

/** Sample values of the Sails emails' variables (each is the `templateData` its action passes). */
const SAILS_LOCALS = {
  fullName: 'Ada Lovelace',
  token: 'AbC1042xYz',
  contactName: 'Ada Lovelace',
  contactEmail: 'ada@example.com',
  topic: 'A question about my order',
  message: 'Hello, my order 1042 has not arrived yet. Could you tell me where it is?',
}

/** One of the emails of a new Sails app, inside its layout, as `sendTemplateEmail` renders it. */
function sailsEjs(dir, path) {
  const ejs = require('ejs')
  const views = join(dir, 'lib/core-generators/new/templates/views')
  const locals = {
    url: require('node:url'),
    sails: { config: { custom: { baseUrl: 'https://example.com' } } },
    ...SAILS_LOCALS,
  }
  const body = ejs.render(readFileSync(join(dir, path), 'utf8'), locals)
  const layout = readFileSync(join(views, 'layout-email.ejs'), 'utf8')
  // `sails new` writes the app's name where the generator's files say NEW_APP_NAME.
  return ejs.render(layout, { ...locals, body }).replaceAll('NEW_APP_NAME', 'Example')
}

/**
 * One of React Email's starter emails: its TSX compiled to CommonJS by TypeScript, run with
 * `react-email`'s components (the same components, published as @react-email/components), and
 * rendered with the props it previews with.
 */
async function reactEmail(dir, path) {
  const ts = require('typescript')
  const { outputText } = ts.transpileModule(readFileSync(join(dir, path), 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      jsx: ts.JsxEmit.ReactJSX,
    },
  })
  const components = require('@react-email/components')
  const module = { exports: {} }
  const requireFor = (id) => (id === 'react-email' ? components : require(id))
  // No VERCEL_URL: image paths stay relative, and renderEmail makes them absolute.
  runInThisContext(`(function (require, module, exports, process) {${outputText}\n})`)(
    requireFor,
    module,
    module.exports,
    { env: {} },
  )
  const Email = module.exports.default
  const { createElement } = require('react')
  return components.render(createElement(Email, Email.PreviewProps ?? {}))
}

/** One of Vendure's emails, by the plugin's own generator, with its sample variables. */
function vendure(dir, path, name) {
  const { HandlebarsMjmlGenerator } = require(join(dir, 'lib/src/handlebars-mjml-generator.js'))
  const generator = new HandlebarsMjmlGenerator()
  generator.onInit({ templatePath: join(dir, 'templates') })
  const vars = JSON.parse(readFileSync(join(HERE, 'vendure-samples.json'), 'utf8'))[name]
  if (!vars) throw new Error(`vendure-samples.json: no sample variables for ${name}`)
  return generator.generate('', '', readFileSync(join(dir, path), 'utf8'), vars).body
}

/** One email's HTML, as its package makes it. */
async function make(collection, email) {
  const dir = packageDir(collection.package)
  switch (collection.render) {
    case 'html':
      return readFileSync(join(dir, email.path), 'utf8')
    case 'mailgen':
      return mailgen(dir, email.path, email.theme)
    case 'freemarker':
      return freemarker(dir, email.path)
    case 'covalent-mjml':
      return covalent(dir, email.template)
    case 'ecomplus':
      return ecomplus(dir, email.method)
    case 'sails-ejs':
      return sailsEjs(dir, email.path)
    case 'vendure':
      return vendure(dir, email.path, email.name)
    case 'react-email':
      return reactEmail(dir, email.path)
    case 'function':
      // JSON has no undefined: a null argument is one left out.
      return require(join(dir, email.path))[email.function](
        ...email.args.map((arg) => arg ?? undefined),
      )
    default:
      throw new Error(`unknown render "${collection.render}"`)
  }
}

/**
 * What the corpus is made from: these scripts, the lists, the samples and each package's
 * version. The same key as the corpus's BUILD_KEY means there is nothing to do (the E-Com Plus
 * emails compile Sass, Vendure's compile MJML: the build takes 13 to 20 s on the shared two-core
 * machine under others' load, 5.4 s of CPU).
 */
function buildKey(sources) {
  const hash = createHash('sha256')
  for (const file of [
    'build-npm.mjs',
    'build.mjs',
    'npm-sources.json',
    'ecomplus-samples.json',
    'vendure-samples.json',
  ])
    hash.update(readFileSync(join(HERE, file)))
  for (const c of sources.collections)
    hash.update(readFileSync(join(packageDir(c.package), 'package.json')))
  return hash.digest('hex')
}

const readOr = (file, otherwise) => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return otherwise
  }
}

async function main([out = NPM_CORPUS_DIR]) {
  const sources = JSON.parse(readFileSync(join(HERE, 'npm-sources.json'), 'utf8'))
  const key = buildKey(sources)
  if (readOr(join(out, 'BUILD_KEY'), null) === key) return
  // Written next to OUT and renamed into place: a reader never sees half a corpus.
  const staging = `${out}.${process.pid}.tmp`
  rmSync(staging, { recursive: true, force: true })
  const byName = new Map(sources.collections.map((c) => [c.collection, c]))
  for (const c of sources.collections) {
    const dir = join(staging, 'licences', c.repo.replace('/', '+'))
    mkdirSync(dir, { recursive: true })
    for (const file of c.licenceFiles)
      writeFileSync(join(dir, file), readFileSync(join(packageDir(c.package), file)))
  }
  for (const e of sources.emails) {
    mkdirSync(join(staging, e.collection), { recursive: true })
    const html = renderEmail(await make(byName.get(e.collection), e), e.collection)
    writeFileSync(join(staging, e.collection, `${e.name}.html`), html)
  }
  writeFileSync(join(staging, 'SOURCES.json'), `${JSON.stringify(sources, null, 2)}\n`)
  writeFileSync(join(staging, 'BUILD_KEY'), key)
  rmSync(out, { recursive: true, force: true })
  renameSync(staging, out)
  console.log(
    `${sources.emails.length} emails from ${sources.collections.length} packages in ${out}`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))
