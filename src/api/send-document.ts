import type { AppContext } from '../http/context.js'
import type { BodyDocument } from '../http/define.js'
import type { JsonSchema } from '../lib/schema.js'
import { exampleVariables, missingVariables, type Template } from '../templates/index.js'

/**
 * What POST /messages takes, as the document says it now (docs/api.md#openapi): the send's common
 * shape (SEND_REQUEST), and one of the templates loaded, each with the variables it reads as an
 * object schema: the ones it needs `required`, nested paths as nested objects, loops' items
 * described, fixture values and front-matter examples as examples. `oneOf` with a discriminator
 * on `template` ties each to its slug, so a client generated from the document refuses at
 * compile time a send that lacks a variable its template needs, and every send the document
 * allows is one sendbox accepts. `--lenient` relaxes it as the server does: unknown fields and
 * missing variables pass.
 */

type Json = Record<string, unknown>

/** `#/components/schemas/SendRequest.welcome`: a template's part of a send. */
const memberName = (slug: string) => `SendRequest.${slug}`
const ref = (name: string) => `#/components/schemas/${name}`

interface Node {
  /** What the template reads under this name. */
  children: Map<string, Node>
  required: boolean
  /** A loop reads these of each item (`stories[].title`). */
  items: Map<string, Node>
}

const node = (): Node => ({ children: new Map(), required: false, items: new Map() })

/** The paths a template reads as a tree: `order.id` is `id` under `order`. */
function pathTree(template: Template, lenient: boolean): Node {
  const root = node()
  const required = new Set(lenient ? [] : template.requiredPaths)
  for (const path of template.paths) {
    let at = root
    for (const segment of path.split('.')) {
      const next = at.children.get(segment) ?? node()
      at.children.set(segment, next)
      at = next
    }
    if (required.has(path)) at.required = true
  }
  for (const path of template.itemPaths) {
    const [collection, rest] = path.split('[]')
    let at = root
    for (const segment of collection!.split('.')) {
      const next = at.children.get(segment) ?? node()
      at.children.set(segment, next)
      at = next
    }
    let item = at.items
    for (const segment of (rest ?? '').split(/\.|\[\]/).filter(Boolean)) {
      const next = item.get(segment) ?? node()
      item.set(segment, next)
      item = next.children
    }
  }
  return root
}

/** Whether anything under a node must be there (then it must be an object holding it). */
const needs = (at: Node): boolean => [...at.children.values()].some((c) => c.required || needs(c))

/**
 * A node's schema. A value the template only reads (or reads through `default`) may be
 * anything; one it needs may be anything but null (null counts as missing); one it needs a
 * path under is an object with that path. Properties apply only to objects, so describing what
 * an optional value holds refuses nothing the server takes.
 */
function schemaOf(at: Node, declared?: { description?: string; example?: unknown }): Json {
  const properties = Object.fromEntries(
    [...at.children].map(([name, child]) => [name, schemaOf(child)]),
  )
  const required = [...at.children].filter(([, c]) => c.required || needs(c)).map(([n]) => n)
  return {
    ...(needs(at) ? { type: 'object' } : at.required ? { not: { type: 'null' } } : {}),
    ...(declared?.description ? { description: declared.description } : {}),
    ...(declared?.example !== undefined ? { examples: [declared.example] } : {}),
    ...(at.children.size ? { properties, additionalProperties: true } : {}),
    ...(required.length ? { required } : {}),
    ...(at.items.size
      ? {
          items: {
            properties: Object.fromEntries([...at.items].map(([n, c]) => [n, schemaOf(c)])),
          },
        }
      : {}),
  }
}

/** Variables that make a send of this template go through: its fixture cases, else its examples. */
function usableExamples(ctx: AppContext, template: Template): Record<string, unknown>[] {
  const cases = ctx.catalog
    .fixtures(template.slug)
    .flatMap((c) => (c.variables ? [c.variables] : []))
  const candidates = cases.length ? cases : [exampleVariables(template)]
  return candidates.filter(
    (variables) => ctx.config.lenient || missingVariables(template, variables).length === 0,
  )
}

/** The schema of a template's `templateVariables`. */
function variablesSchema(template: Template, examples: unknown[], lenient: boolean): Json {
  const tree = pathTree(template, lenient)
  const properties = Object.fromEntries(
    [...tree.children].map(([name, child]) => [name, schemaOf(child, template.declared[name])]),
  )
  const required = [...tree.children]
    .filter(([, c]) => c.required || needs(c))
    .map(([name]) => name)
  return {
    type: 'object',
    description: `What the template "${template.slug}" reads${required.length ? `; it needs ${required.join(', ')}` : ''}. Other variables are accepted (and warned of as unused).`,
    properties,
    additionalProperties: true,
    ...(required.length ? { required } : {}),
    ...(examples.length ? { examples } : {}),
  }
}

/** A template's part of a send: its slug, and the variables it needs. */
function memberSchema(template: Template, variables: Json): Json {
  const needsVariables = Array.isArray(variables.required)
  return {
    type: 'object',
    description: template.description ?? `A send of the template "${template.slug}".`,
    required: ['template', ...(needsVariables ? ['templateVariables'] : [])],
    properties: { template: { const: template.slug }, templateVariables: variables },
  }
}

/**
 * POST /messages's body in the document: `SendRequest` (the common shape, `schema`) with one
 * member per valid template, and a request example per template whose fixtures or examples
 * make a send that goes through.
 *
 * @example body: { …, document: sendRequestDocument }
 */
export function sendRequestDocument(ctx: AppContext, schema: JsonSchema): BodyDocument {
  const lenient = ctx.config.lenient
  const templates = ctx.catalog
    .list()
    .filter((summary) => !summary.error)
    .flatMap((summary) => {
      const lookup = ctx.catalog.lookup(summary.slug)
      return lookup.ok ? [lookup.template] : []
    })
  const { components, examples } = templateMembers(ctx, templates, lenient)
  return {
    schema: { $ref: ref('SendRequest') },
    components: { SendRequest: sendSchema(schema, templates, examples, lenient), ...components },
    examples,
  }
}

/** One member of `SendRequest` per template, and a request example of each that has one. */
function templateMembers(
  ctx: AppContext,
  templates: Template[],
  lenient: boolean,
): { components: Record<string, JsonSchema>; examples: NonNullable<BodyDocument['examples']> } {
  const components: Record<string, JsonSchema> = {}
  const examples: NonNullable<BodyDocument['examples']> = {}
  for (const template of templates) {
    const usable = usableExamples(ctx, template)
    components[memberName(template.slug)] = memberSchema(
      template,
      variablesSchema(template, usable, lenient),
    )
    if (usable[0])
      examples[`send-${template.slug}`] = {
        summary: `The ${template.slug} template, with the variables of its first example`,
        value: {
          template: template.slug,
          from: 'Acme <hello@acme.test>',
          to: 'Ada Lovelace <ada@example.com>',
          subject: 'Hello from Acme',
          templateVariables: usable[0],
        },
      }
  }
  return { components, examples }
}

/** `SendRequest`: the common shape, the templates by name, one of their members. */
function sendSchema(
  schema: JsonSchema,
  templates: Template[],
  examples: NonNullable<BodyDocument['examples']>,
  lenient: boolean,
): Json {
  const properties = schema.properties as Record<string, Json>
  const [first] = Object.values(examples)
  const send: Json = {
    ...schema,
    properties: {
      ...properties,
      template: {
        ...properties.template,
        ...(templates.length ? { enum: templates.map((t) => t.slug) } : {}),
        // The property examples make a send too: a template, and variables it takes.
        examples: first ? [(first.value as Json).template] : undefined,
      },
      templateVariables: {
        ...properties.templateVariables,
        examples: first ? [(first.value as Json).templateVariables] : undefined,
      },
    },
    // --lenient takes unknown top-level fields (and warns of each).
    ...(lenient ? { additionalProperties: true } : {}),
    ...(templates.length
      ? {
          oneOf: templates.map((t) => ({ $ref: ref(memberName(t.slug)) })),
          discriminator: {
            propertyName: 'template',
            mapping: Object.fromEntries(templates.map((t) => [t.slug, ref(memberName(t.slug))])),
          },
        }
      : {
          description: `${String(schema.description)} No template is loaded now: every send is 422 template_not_found.`,
        }),
  }
  return send
}
