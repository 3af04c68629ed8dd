import { afterEach, describe, expect, it } from 'vitest'
import { missingVariables, unusedVariables, type Template } from '../../src/templates/index.js'
import { resolveVariables, staticPath } from '../../src/templates/analyze.js'
import { makeCatalog, template, type Fixture } from './helpers.js'

let fixture: Fixture | undefined
afterEach(async () => {
  await fixture?.close()
  fixture = undefined
})

/** variables and requiredPaths of a single template `t` (plus partials). */
async function analyse(source: string, partials: Record<string, string> = {}) {
  fixture = await makeCatalog({ 't.liquid': source, ...partials })
  const t = template(fixture.catalog, 't')
  return { variables: t.variables, required: t.requiredPaths, template: t }
}

describe('Template.variables and requiredPaths', () => {
  it('lists top-level names and full dotted paths, sorted', async () => {
    const result = await analyse('{{ user.name }} {{ order.id }} {{ order.total }} {{ greeting }}')
    expect(result.variables).toEqual(['greeting', 'order', 'user'])
    expect(result.required).toEqual(['greeting', 'order.id', 'order.total', 'user.name'])
  })

  it('excludes loop variables, assign and capture names, forloop and block', async () => {
    const result = await analyse(
      [
        '{% assign title = heading | upcase %}{{ title }}',
        '{% capture intro %}Hi {{ name }}{% endcapture %}{{ intro }}',
        '{% for item in order.items %}{{ item.name }} {{ forloop.index }}{% endfor %}',
        '{% increment counter %}{{ counter }}',
      ].join('\n'),
    )
    expect(result.variables).toEqual(['heading', 'name', 'order'])
    expect(result.required).toEqual(['heading', 'name', 'order.items'])
  })

  it('reads loops as arrays: what the body reads through the loop variable, as item paths', async () => {
    const result = await analyse(
      [
        '{% for story in stories %}{{ story.title }} {{ story.author.name }} {{ forloop.index }}{% endfor %}',
        '{% for item in order.items %}{{ item.name }}{% for tag in item.tags %}{{ tag }}{% endfor %}{% endfor %}',
        '{% for i in (1..3) %}{{ i }}{% endfor %}',
        '{% assign local = order.items %}{% for x in local %}{{ x.nope }}{% endfor %}',
        '{% tablerow cell in cells %}{{ cell.label }}{% endtablerow %}',
        '{% for s in shared %}{% include "partials/s" %}{% endfor %}',
      ].join('\n'),
      { 'partials/s.liquid': '{{ s.headline }}' },
    )
    expect(result.required).toEqual(['cells', 'order.items', 'shared', 'stories'])
    expect(result.template.itemPaths).toEqual([
      'cells[].label',
      'order.items[].name',
      'order.items[].tags[]',
      'shared[].headline',
      'stories[].author.name',
      'stories[].title',
    ])
  })

  it('makes a variable optional when every use passes through default', async () => {
    const result = await analyse(
      '{{ name | default: "there" }} {{ name | default: "you" | upcase }} {{ plan | default: "free" }} {{ plan }}',
    )
    expect(result.variables).toEqual(['name', 'plan'])
    expect(result.required).toEqual(['plan'])
  })

  it('does not count default as a later filter, nor the fallback expression', async () => {
    const result = await analyse('{{ a | upcase | default: "x" }} {{ b | default: c }}')
    expect(result.required).toEqual(['a', 'c'])
  })

  it('sees default in tags too (assign, echo, if)', async () => {
    const result = await analyse(
      '{% assign n = count | default: 1 %}{{ n }}{% echo who | default: "x" %}',
    )
    expect(result.variables).toEqual(['count', 'who'])
    expect(result.required).toEqual([])
  })

  it('truncates at indexes, computed keys and size/first/last', async () => {
    const result = await analyse(
      '{{ items[0].name }} {{ list.first.title }} {{ tags.size }} {{ rows.last }} {{ user[key].name }} {{ cart.lines.size }}',
    )
    expect(result.variables).toEqual(['cart', 'items', 'key', 'list', 'rows', 'tags', 'user'])
    expect(result.required).toEqual(['cart.lines', 'items', 'key', 'list', 'rows', 'tags', 'user'])
  })

  it('drops a path implied by a longer one', async () => {
    const result = await analyse('{{ order }} {{ order.id }}')
    expect(result.required).toEqual(['order.id'])
  })

  it('includes what included partials and the layout read from the caller', async () => {
    const result = await analyse(
      '{% layout "layouts/base" %}{% block content %}{% include "partials/sig" %}{{ body }}{% endblock %}',
      {
        'layouts/base.liquid':
          '<title>{{ title }}</title>{% block content %}{% endblock %}{{ footer | default: "" }}',
        'partials/sig.liquid': '{% assign who = sender.name %}-- {{ who }}',
      },
    )
    expect(result.variables).toEqual(['body', 'footer', 'sender', 'title'])
    expect(result.required).toEqual(['body', 'sender.name', 'title'])
  })

  it('layout parameters are not caller variables', async () => {
    const result = await analyse(
      '{% layout "base", title: heading %}{% block content %}x{% endblock %}',
      {
        'base.html': '<title>{{ title }}</title>{% block content %}{% endblock %}',
      },
    )
    expect(result.variables).toEqual(['heading'])
  })

  it("excludes a render partial's parameters but includes the expressions passed to them", async () => {
    const result = await analyse('{% render "partials/button", url: link, label: "Go" %}', {
      'partials/button.liquid': '<a href="{{ url }}">{{ label }}</a>',
    })
    expect(result.variables).toEqual(['link'])
    expect(result.required).toEqual(['link'])
  })

  it('ignores names a render partial reads that the caller cannot pass', async () => {
    const result = await analyse('{% render "partials/p", a: x %}', {
      'partials/p.liquid': '{{ a }} {{ not_passed }}',
    })
    expect(result.variables).toEqual(['x'])
  })

  it('maps render with/for aliases to the caller variables', async () => {
    const result = await analyse(
      '{% render "partials/row" for order.items as item %}{% render "partials/card" with account as acc %}',
      {
        'partials/row.liquid': '{{ item.name }} {{ item.price }}',
        'partials/card.liquid': '{{ acc.owner.name }}',
      },
    )
    expect(result.variables).toEqual(['account', 'order'])
    expect(result.required).toEqual(['account.owner.name', 'order.items'])
  })

  it('adds front matter declarations, honours required: false and required: true', async () => {
    const result = await analyse(
      [
        '---',
        'variables:',
        '  name: {}',
        '  coupon: { required: false }',
        '  order: { required: false }',
        '  extra: { description: only declared }',
        '  nickname: { required: true }',
        '  optionalOnly: { required: false }',
        '---',
        '{{ name }} {% if coupon %}{{ coupon }}{% endif %} {{ order.id }} {{ nickname | default: name }}',
      ].join('\n'),
    )
    expect(result.variables).toEqual([
      'coupon',
      'extra',
      'name',
      'nickname',
      'optionalOnly',
      'order',
    ])
    expect(result.required).toEqual(['extra', 'name', 'nickname'])
    expect(result.template.declared.coupon).toEqual({ required: false })
  })

  it('counts variables in conditions and filter arguments as uses', async () => {
    const result = await analyse(
      '{% if vip %}VIP{% endif %}{{ price | times: rate }}{% case plan %}{% when "a" %}{% endcase %}',
    )
    expect(result.required).toEqual(['plan', 'price', 'rate', 'vip'])
  })
})

describe('staticPath', () => {
  it('keeps string segments up to the first index, accessor or computed key', () => {
    expect(staticPath(['order', 'id'])).toBe('order.id')
    expect(staticPath(['items', 0, 'name'])).toBe('items')
    expect(staticPath(['items', 'first', 'name'])).toBe('items')
    expect(staticPath(['size'])).toBe('size')
    expect(staticPath(['a', ['b'], 'c'])).toBe('a')
    expect(staticPath([0])).toBeNull()
    expect(staticPath(['a.b'])).toBeNull()
  })
})

describe('resolveVariables', () => {
  it('requires declared names the analysis does not see, as top-level names', () => {
    const result = resolveVariables(
      { names: ['a'], paths: new Map([['a.b', false]]) },
      { c: {}, 'd.e': {} },
    )
    expect(result).toEqual({ variables: ['a', 'c', 'd'], requiredPaths: ['a.b', 'c', 'd.e'] })
  })
})

describe('missingVariables', () => {
  const t = {
    requiredPaths: ['name', 'order.id', 'order.customer.email'],
    variables: ['name', 'order'],
  } as unknown as Template

  it('is empty when every path resolves', () => {
    expect(missingVariables(t, { name: 'Ada', order: { id: 0, customer: { email: '' } } })).toEqual(
      [],
    )
  })

  it('reports missing, undefined and null values at any depth, sorted', () => {
    expect(missingVariables(t, {})).toEqual(['name', 'order.customer.email', 'order.id'])
    expect(missingVariables(t, { name: null, order: { id: 1, customer: null } })).toEqual([
      'name',
      'order.customer.email',
    ])
    expect(
      missingVariables(t, { name: 'x', order: { id: undefined, customer: { email: 'a@b.c' } } }),
    ).toEqual(['order.id'])
  })

  it('does not walk through strings, numbers or inherited properties', () => {
    expect(missingVariables(t, { name: 'x', order: 'o' })).toEqual([
      'order.customer.email',
      'order.id',
    ])
    const inherited = Object.create({ id: 1, customer: { email: 'x' } })
    expect(missingVariables(t, { name: 'x', order: inherited })).toEqual([
      'order.customer.email',
      'order.id',
    ])
  })

  it('accepts false, 0 and empty values as present', () => {
    const flags = {
      requiredPaths: ['on', 'count', 'list', 'text'],
      variables: [],
    } as unknown as Template
    expect(missingVariables(flags, { on: false, count: 0, list: [], text: '' })).toEqual([])
  })
})

describe('unusedVariables', () => {
  it('lists supplied top-level keys the template never reads, sorted', () => {
    const t = { requiredPaths: [], variables: ['name', 'order'] } as unknown as Template
    expect(unusedVariables(t, { order: {}, zeta: 1, name: 'x', alpha: 2 })).toEqual([
      'alpha',
      'zeta',
    ])
    expect(unusedVariables(t, {})).toEqual([])
  })
})
