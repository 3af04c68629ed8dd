import { describe, expect, it } from 'vitest'
import type {
  LivePreview,
  Soft,
  TemplateDetail,
  TemplateListItem,
} from '../../src/inbox/page/api.js'
import { TemplateSession } from '../../src/inbox/page/template-session.js'
import { parseVariables, type Variables } from '../../src/inbox/page/variables.js'

/**
 * The inbox's template render session, without a browser: what it asks to load, how it keeps
 * or resets the editor, which answers it drops, and how a saved case gets picked.
 */

const summary = (
  slug: string,
  fixtures: string[] = [],
  extra: Partial<TemplateListItem> = {},
): TemplateListItem => ({
  slug,
  description: null,
  variables: ['name'],
  updatedAt: '2026-01-01T00:00:00.000Z',
  fixtures: fixtures.map((name) => ({ name })),
  ...extra,
})

const detail = (slug: string, skeleton: Variables = { name: '<name>' }): TemplateDetail => ({
  slug,
  description: null,
  body: '{{ name }}',
  source: '{{ name }}',
  variables: ['name'],
  required: ['name'],
  declared: {},
  updatedAt: '2026-01-01T00:00:00.000Z',
  fixtures: [],
  skeleton,
})

let ids = 0
const preview = (variables: Variables): Soft<LivePreview> & { ok: true } => {
  const id = `pv_${++ids}`
  return {
    ok: true,
    id,
    url: `/_sandbox/api/previews/${id}`,
    html: `<p>${JSON.stringify(variables)}</p>`,
    text: '',
    warnings: [],
    missing: [],
    variables,
    checks: { htmlBytes: 10, findings: [], clients: [], counts: { error: 0, warning: 0, info: 0 } },
  }
}
const failure = (code: string): Soft<LivePreview> => ({
  ok: false,
  error: { code, message: code, details: [] },
})
/** What the editor reads: its text, parsed. */
const text = (value: unknown) => parseVariables(JSON.stringify(value))
const EMPTY = parseVariables('')

/** A session with the list in and a template open, loaded with its case `default` ({ name: 'Ada' }). */
function openWithCase(slug = 'welcome') {
  const session = new TemplateSession()
  session.open(slug, null)
  session.list([summary(slug, ['default', 'bob'])])
  const plan = session.planLoad()!
  const result = session.loaded(plan.ticket, detail(slug), preview({ name: 'Ada' }), EMPTY)!
  return { session, plan, result }
}

describe('opening a template', () => {
  it('waits for the list, then loads the detail and the first usable case in one preview', () => {
    const session = new TemplateSession()
    expect(session.open('welcome', null)).toBe(true)
    expect(session.planLoad()).toBeNull()
    expect(
      session.list([
        summary('welcome', ['broken', 'default'], {
          fixtures: [{ name: 'broken', error: 'Invalid JSON' }, { name: 'default' }],
        }),
      ]),
    ).toEqual({ load: true, changed: false, picked: null })
    const plan = session.planLoad()!
    expect(plan.detail).toBe(true)
    expect(plan.preview).toEqual({ template: 'welcome', case: 'default' })
    expect(session.selectedCase).toBe('default')
  })

  it('shows the case render as it came, on its stable URL, and fills the editor with its variables', () => {
    const { session, result } = openWithCase()
    expect(result).toEqual({ editor: { name: 'Ada' }, render: null })
    expect(session.outcome).toMatchObject({
      ok: true,
      variables: { name: 'Ada' },
      frame: '/_sandbox/api/templates/welcome/preview?v=1',
    })
    expect(session.showsCase).toBe(true)
    expect(session.baseName).toBe('the fixture')
  })

  it('renders the skeleton of a template without fixtures, after its detail', () => {
    const session = new TemplateSession()
    session.open('card', null)
    session.list([summary('card')])
    const plan = session.planLoad()!
    expect(plan.preview).toBeNull()
    const result = session.loaded(
      plan.ticket,
      detail('card', { name: 'Ada', plan: { name: '<plan.name>' } }),
      null,
      EMPTY,
    )!
    expect(result).toEqual({
      editor: { name: 'Ada', plan: { name: '<plan.name>' } },
      render: { name: 'Ada', plan: { name: '<plan.name>' } },
    })
    expect(session.baseName).toBe('the examples')
    const ticket = session.beginRender()
    expect(session.rendered(ticket, result.render!, preview(result.render!))).toBe(true)
    expect(session.outcome).toMatchObject({
      ok: true,
      frame: expect.stringMatching(/^\/_sandbox\/api\/previews\/pv_/),
    })
  })

  it('asks a template that does not parse for its error only (no detail)', () => {
    const session = new TemplateSession()
    session.open('broken', null)
    session.list([
      summary('broken', [], {
        error: { file: 'broken.liquid', line: 2, column: 1, message: 'Nope.' },
      }),
    ])
    const plan = session.planLoad()!
    expect(plan).toMatchObject({ detail: false, preview: { template: 'broken' } })
    expect(session.loaded(plan.ticket, null, failure('template_invalid'), EMPTY)).toEqual({
      editor: {},
      render: null,
    })
    expect(session.outcome).toEqual({
      ok: false,
      error: { code: 'template_invalid', message: 'template_invalid', details: [] },
    })
  })

  it('shows why a case does not render, and renders nothing else', () => {
    const session = new TemplateSession()
    session.open('welcome', 'bad')
    session.list([summary('welcome', ['bad'])])
    const plan = session.planLoad()!
    expect(plan.preview).toEqual({ template: 'welcome', case: 'bad' })
    expect(
      session.loaded(plan.ticket, detail('welcome'), failure('fixture_invalid'), EMPTY)!.render,
    ).toBeNull()
    expect(session.outcome).toMatchObject({ ok: false, error: { code: 'fixture_invalid' } })
  })

  it('says there is nothing to load for a template the list does not have', () => {
    const session = new TemplateSession()
    session.open('gone', null)
    session.list([summary('welcome')])
    expect(session.summary).toBeUndefined()
    expect(session.planLoad()).toBeNull()
  })
})

describe('editing', () => {
  it('renders changed variables, not the ones on screen, and brings the case back without a request', () => {
    const { session } = openWithCase()
    expect(session.edit({ name: 'Ada' })).toBe(false)
    expect(session.edit({ name: 'Grace' })).toBe(true)
    const ticket = session.beginRender()
    session.rendered(ticket, { name: 'Grace' }, preview({ name: 'Grace' }))
    expect(session.showsCase).toBe(false)
    expect(session.edited(text({ name: 'Grace' }))).toBe(true)
    expect(session.edit({ name: 'Grace' })).toBe(false)
    // Back to the case's values (Reset): its kept render, on a fresh frame URL.
    expect(session.edit({ name: 'Ada' })).toBe(false)
    expect(session.showsCase).toBe(true)
    expect(session.outcome).toMatchObject({ frame: '/_sandbox/api/templates/welcome/preview?v=3' })
    expect(session.edited(text({ name: 'Ada' }))).toBe(false)
    expect(session.edited(parseVariables('{ nope'))).toBe(true)
  })

  it('drops an answer once a newer request was made (stale renders never show)', () => {
    const { session } = openWithCase()
    const first = session.beginRender()
    const second = session.beginRender()
    expect(session.rendered(first, { name: 'G' }, preview({ name: 'G' }))).toBe(false)
    expect(session.outcome).toMatchObject({ variables: { name: 'Ada' } })
    expect(session.rendered(second, { name: 'Gr' }, preview({ name: 'Gr' }))).toBe(true)
    expect(session.outcome).toMatchObject({ variables: { name: 'Gr' } })
  })

  it('drops a render that was under way when the case values came back', () => {
    const { session } = openWithCase()
    const ticket = session.beginRender()
    session.edit({ name: 'Ada' })
    expect(session.rendered(ticket, { name: 'G' }, preview({ name: 'G' }))).toBe(false)
    expect(session.showsCase).toBe(true)
  })

  it('drops answers for a template that is no longer open', () => {
    const { session } = openWithCase('welcome')
    const ticket = session.beginRender()
    session.open('receipt', null)
    expect(session.rendered(ticket, { name: 'G' }, preview({ name: 'G' }))).toBe(false)
    expect(session.outcome).toBeNull()
  })

  it('keeps a failed render as the outcome, with its error', () => {
    const { session } = openWithCase()
    const ticket = session.beginRender()
    session.rendered(ticket, { name: 'G' }, failure('render_failed'))
    expect(session.outcome).toMatchObject({ ok: false, error: { code: 'render_failed' } })
    // The same variables again still need a render: nothing good is on screen for them.
    expect(session.edit({ name: 'G' })).toBe(true)
  })
})

describe('a change on disk', () => {
  it('keeps the edits and renders them again', () => {
    const { session } = openWithCase()
    session.edit({ name: 'Grace' })
    session.rendered(session.beginRender(), { name: 'Grace' }, preview({ name: 'Grace' }))
    session.changed('welcome')
    expect(session.list([summary('welcome', ['default', 'bob'])])).toEqual({
      load: true,
      changed: true,
      picked: null,
    })
    const plan = session.planLoad()!
    const result = session.loaded(
      plan.ticket,
      detail('welcome'),
      preview({ name: 'Ada' }),
      text({ name: 'Grace' }),
    )!
    expect(result).toEqual({ editor: null, render: { name: 'Grace' } })
  })

  it('keeps the last rendered variables while the editor holds broken JSON', () => {
    const { session } = openWithCase()
    session.rendered(session.beginRender(), { name: 'Grace' }, preview({ name: 'Grace' }))
    session.changed('*')
    session.list([summary('welcome', ['default'])])
    const plan = session.planLoad()!
    expect(
      session.loaded(
        plan.ticket,
        detail('welcome'),
        preview({ name: 'Ada' }),
        parseVariables('{ "name": '),
      ),
    ).toEqual({ editor: null, render: { name: 'Grace' } })
  })

  it('follows the fixture when the editor still shows it as it was', () => {
    const { session } = openWithCase()
    session.changed('welcome')
    session.list([summary('welcome', ['default'])])
    const plan = session.planLoad()!
    // The fixture file now says Robert; the editor still shows Ada, untouched.
    expect(
      session.loaded(
        plan.ticket,
        detail('welcome'),
        preview({ name: 'Robert' }),
        text({ name: 'Ada' }),
      ),
    ).toEqual({ editor: { name: 'Robert' }, render: null })
    expect(session.outcome).toMatchObject({
      variables: { name: 'Robert' },
      frame: '/_sandbox/api/templates/welcome/preview?v=2',
    })
  })

  it('does not load again for a change to another template', () => {
    const { session } = openWithCase()
    session.changed('other')
    expect(session.list([summary('welcome', ['default'])]).load).toBe(false)
  })
})

describe('fixture cases', () => {
  it('starts the editor over from another case', () => {
    const { session } = openWithCase()
    session.edit({ name: 'Grace' })
    session.setCase('bob')
    const plan = session.planLoad()!
    expect(plan.preview).toEqual({ template: 'welcome', case: 'bob' })
    expect(
      session.loaded(
        plan.ticket,
        detail('welcome'),
        preview({ name: 'Bob' }),
        text({ name: 'Grace' }),
      ),
    ).toEqual({ editor: { name: 'Bob' }, render: null })
    expect(session.outcome).toMatchObject({
      frame: '/_sandbox/api/templates/welcome/preview?case=bob&v=2',
    })
    expect(session.baseName).toBe('bob')
  })

  it('picks a saved case once the list has it, and only then', () => {
    const { session } = openWithCase()
    session.caseSaved('margaret')
    expect(session.awaits('margaret')).toBe(true)
    expect(session.list([summary('welcome', ['default', 'bob'])])).toEqual({
      load: false,
      changed: false,
      picked: null,
    })
    expect(session.list([summary('welcome', ['bob', 'default', 'margaret'])])).toEqual({
      load: true,
      changed: false,
      picked: 'margaret',
    })
    expect(session.awaits('margaret')).toBe(false)
    expect(session.caseName).toBe('margaret')
    expect(session.planLoad()!.preview).toEqual({ template: 'welcome', case: 'margaret' })
  })

  it('forgets a saved case when another template opens', () => {
    const { session } = openWithCase()
    session.caseSaved('margaret')
    session.open('receipt', null)
    expect(session.awaits('margaret')).toBe(false)
  })
})
