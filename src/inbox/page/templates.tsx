import type { VNode } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { SourceProblem, TemplateDetail, TemplateListItem } from './api.js'
import { ChecksBadge, ChecksTab } from './checks.js'
import { sourceLineParams } from './detail-route.js'
import { ErrorCard } from './error-card.js'
import { plural } from './format.js'
import { MeasuringFrame, PreviewControls, SandboxedFrame } from './frame.js'
import { countOf, ListPane } from './list-pane.js'
import { TEMPLATE_WIDTHS } from './preview.js'
import { formatHash, type Route } from './router.js'
import { Splitter, useStoredWidth } from './splitter.js'
import { TemplateNotes } from './template-notes.js'
import { TEMPLATE_TABS, type TemplatesModel } from './templates-model.js'
import { JsonBlock, Placeholder, RelativeTime, Select, SourceView, Tabs } from './ui.js'
import { VariablesEditor } from './variables-editor.js'

/**
 * The Templates view: the list, and the open template rendered live in a sandboxed frame with
 * variables to edit beside it (TemplatesModel holds the session; this draws it), re-rendered by
 * itself when anything it depends on changes on disk.
 */
export function TemplatesView({ model, route }: { model: TemplatesModel; route: Route }) {
  const detail = useRef<HTMLElement>(null)
  const slug = route.name
  useLayoutEffect(() => {
    if (!slug) model.keys.restoreFocus(detail.current)
  }, [slug, route])
  useEffect(() => {
    document.title = slug ? `${slug} · Templates · sendbox` : 'Templates · sendbox'
  }, [slug])
  return (
    <div
      class="split"
      id="view-templates"
      data-open={String(!!slug)}
      data-list={model.listHidden.value ? 'hidden' : undefined}
    >
      <TemplateList model={model} />
      <section
        class="pane detail-pane"
        id="template-pane"
        aria-label="Template preview"
        ref={detail}
      >
        <TemplateDetailView model={model} />
      </section>
    </div>
  )
}

const LIST_IDS = {
  pane: 'template-list-pane',
  title: 'templates-title',
  search: 'template-search',
  count: 'template-count',
  list: 'template-list',
}

function TemplateList({ model }: { model: TemplatesModel }) {
  model.version.value // The session's state below (listed, open) is plain: its version says when it changed.
  const templates = model.templates.value
  const needle = model.filter.value.trim().toLowerCase()
  const listed = model.session.isListed
  const shown = templates.filter(
    (t) =>
      !needle ||
      t.slug.toLowerCase().includes(needle) ||
      (t.description ?? '').toLowerCase().includes(needle),
  )
  const current = model.session.slug
  return (
    <ListPane
      nav={model.keys}
      ids={LIST_IDS}
      title="Templates"
      count={listed ? countOf(templates.length, 'template') : null}
      searchLabel="Filter templates"
      search={model.filter.value}
      onSearch={(value) => {
        model.filter.value = value
      }}
      empty={
        !listed || shown.length ? null : templates.length ? (
          <p class="empty-title">No template matches</p>
        ) : (
          <>
            <p class="empty-title">No templates yet</p>
            <p>
              Add a file such as <code>welcome.liquid</code> to the templates folder; it shows up
              here at once.
            </p>
          </>
        )
      }
    >
      {shown.map((t) => (
        <TemplateItem
          key={t.slug}
          t={t}
          href={model.hrefFor(t.slug)}
          current={t.slug === current}
        />
      ))}
    </ListPane>
  )
}

/** A template in the list: its slug, whether it parses, its fixtures, description and variables. */
function TemplateItem({
  t,
  href,
  current,
}: {
  t: TemplateListItem
  href: string
  current: boolean
}) {
  return (
    <li>
      <a class="item" href={href} data-slug={t.slug} aria-current={current ? 'true' : undefined}>
        <span class="item-top">
          <span class="item-subject item-slug">{t.slug}</span>
          {t.error ? (
            <span class="badge badge-error">Does not parse</span>
          ) : (
            <span class="item-time">
              {t.fixtures.length ? plural(t.fixtures.length, 'fixture') : 'no fixture'}
            </span>
          )}
        </span>
        {t.description ? (
          <span class="item-desc">{t.description}</span>
        ) : (
          <span class="item-desc muted">No description</span>
        )}
        {t.variables.length ? (
          <span class="item-vars">
            <span class="visually-hidden">Variables: </span>
            {t.variables.map((v) => (
              <code class="chip" key={v}>
                {v}
              </code>
            ))}
          </span>
        ) : null}
      </a>
    </li>
  )
}

function TemplateDetailView({ model }: { model: TemplatesModel }) {
  model.version.value
  const { session } = model
  const slug = session.slug
  if (!slug)
    return (
      <Placeholder>
        <p>Select a template to preview it with its fixtures.</p>
        <p class="hint">
          Edit its variables live; the preview also re-renders by itself when the template, a
          partial, a layout or a fixture changes on disk.
        </p>
      </Placeholder>
    )
  const summary = session.summary
  if (!session.isListed)
    return (
      <Placeholder>
        <p>Loading…</p>
      </Placeholder>
    )
  if (!summary)
    return (
      <Placeholder>
        <p>
          There is no template <code>{slug}</code> (any more).
        </p>
        <p>
          <a href={model.hrefFor(null)}>All templates</a>
        </p>
      </Placeholder>
    )
  return (
    <article class="message template" aria-labelledby="template-title">
      <TemplateHead model={model} t={summary} />
      <TemplateBody model={model} slug={slug} />
    </article>
  )
}

/**
 * An open template's head, compact (the preview gets the height): the way back (narrow
 * screens), the slug with its description and the list toggle, what it expects and when it
 * changed, then the tabs and the fixture case picker.
 */
function TemplateHead({ model, t }: { model: TemplatesModel; t: TemplateListItem }) {
  model.version.value
  const { tab } = model.detail.value
  const outcome = model.session.outcome
  const hidden = model.listHidden.value
  const cases = t.fixtures
  return (
    <header class="message-head template-head">
      <a class="back" href={model.hrefFor(null)}>
        <span aria-hidden="true">← </span>
        Templates
      </a>
      <div class="title-line">
        <h2 id="template-title" tabIndex={-1}>
          {t.slug}
        </h2>
        {t.description ? <p class="lede">{t.description}</p> : null}
        <ListToggle hidden={hidden} onToggle={() => model.setListHidden(!hidden)} />
      </div>
      <TemplateMeta t={t} />
      <div class="toolbar">
        <Tabs
          prefix="template"
          label="Template views"
          tabs={TEMPLATE_TABS}
          selected={tab}
          onSelect={(next) => model.setTab(next)}
          badges={{ checks: <ChecksBadge report={outcome?.ok ? outcome.preview.checks : null} /> }}
          arrowsAnywhere
        />
        <div class="toolbar-end">
          {cases.length ? (
            <CasePicker
              cases={cases}
              selected={model.session.selectedCase}
              onPick={(name) => model.setCase(name)}
            />
          ) : (
            <p class="field-static">No fixture case yet</p>
          )}
        </div>
      </div>
    </header>
  )
}

/** Hide the list (wide screens): the open template takes the whole width. */
function ListToggle({ hidden, onToggle }: { hidden: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      class="btn btn-quiet list-toggle"
      id="template-list-pane-toggle"
      aria-controls="template-list-pane"
      aria-expanded={hidden ? 'false' : 'true'}
      title={
        hidden ? 'Show the list beside this one' : 'Hide the list: this one takes the whole width'
      }
      onClick={onToggle}
    >
      {hidden ? 'Show list' : 'Hide list'}
    </button>
  )
}

/** What the template reads, and when it changed, on one line. */
function TemplateMeta({ t }: { t: TemplateListItem }) {
  return (
    <dl class="meta meta-line">
      <div>
        {/* Every name it reads, required or not (one read only through `default` included):
            the Variables tab says which a send must give. */}
        <dt>Reads</dt>
        <dd class="chips">
          {t.variables.length
            ? t.variables.map((v) => (
                <code class="chip" key={v}>
                  {v}
                </code>
              ))
            : 'no variables'}
        </dd>
      </div>
      <div class="meta-updated">
        <dt>Updated</dt>
        <dd>
          <RelativeTime iso={t.updatedAt} />
        </dd>
      </div>
    </dl>
  )
}

/** Which fixture case the preview renders (an invalid one says so). */
function CasePicker({
  cases,
  selected,
  onPick,
}: {
  cases: TemplateListItem['fixtures']
  selected: string
  onPick: (name: string) => void
}) {
  return (
    <div class="field">
      <label for="case-select">Fixture</label>
      <Select
        id="case-select"
        value={selected}
        options={cases.map((c) => [c.name, c.error ? `${c.name} (invalid)` : c.name])}
        onPick={onPick}
      />
    </div>
  )
}

/** The least the preview keeps beside the editor (a 600 px email and the canvas's padding). */
const PREVIEW_MIN = 360

// Long because it is the template's one layout tree (editor, splitter, notes, options, panel,
// measuring frame) with the few sizes they share: the editor's width, the frame's, the email's.
function TemplateBody({ model, slug }: { model: TemplatesModel; slug: string }) {
  model.version.value
  const { session } = model
  const { tab, view, line } = model.detail.value
  const outcome = session.outcome
  const body = useRef<HTMLDivElement>(null)
  const max = () => Math.max(260, (body.current?.clientWidth ?? 0) - PREVIEW_MIN)
  const [width, setWidth] = useStoredWidth('sendbox.editor.width', 360, 260, max)
  // The preview's size: its frame's width (it reports it), the email's height (measured).
  const [frameWidth, setFrameWidth] = useState(0)
  const [emailHeight, setEmailHeight] = useState<number | null>(null)
  // Nothing to edit in a template that does not parse.
  const parses = !outcome || outcome.ok || outcome.error.code !== 'template_invalid'
  const ok = outcome?.ok ? outcome.preview : null
  const preview = tab === 'preview' && outcome?.ok ? outcome.frame : null
  return (
    <div
      class="template-body"
      ref={body}
      data-editor={parses ? 'on' : 'off'}
      style={{ '--editor-width': `${width}px` }}
    >
      {parses ? <VariablesEditor model={model} /> : null}
      {parses ? (
        <Splitter
          controls="vars-editor"
          label="Resize the variables editor"
          width={width}
          min={260}
          max={max}
          onWidth={setWidth}
        />
      ) : null}
      <div class="template-main">
        <TemplateNotes
          missing={ok?.missing ?? []}
          warnings={ok?.warnings ?? []}
          noDarkRules={!!ok && view.dark === 'media' && !hasDarkRules(ok.html)}
        />
        {tab === 'preview' && outcome?.ok ? (
          <PreviewControls
            prefix="template"
            presets={TEMPLATE_WIDTHS}
            view={view}
            onChange={(next) => model.setView(next)}
          />
        ) : null}
        <div
          class="panel"
          id="template-panel"
          role="tabpanel"
          aria-labelledby={`template-tab-${tab}`}
        >
          <TemplatePanel
            model={model}
            slug={slug}
            line={line}
            fit={{ height: emailHeight, onWidth: setFrameWidth }}
          />
        </div>
        {preview ? (
          <MeasuringFrame src={preview} view={view} width={frameWidth} onHeight={setEmailHeight} />
        ) : null}
      </div>
    </div>
  )
}

/** Whether an email has rules for dark mode (what Apple Mail and Outlook for Mac apply). */
export const hasDarkRules = (html: string): boolean => /prefers-color-scheme\s*:\s*dark/i.test(html)

function TemplatePanel({
  model,
  slug,
  line,
  fit,
}: {
  model: TemplatesModel
  slug: string
  line: number | null
  fit: { height: number | null; onWidth(width: number): void }
}) {
  model.version.value
  const { outcome, detail } = model.session
  const { tab, view } = model.detail.value
  if (tab === 'liquid') {
    if (detail)
      return <SourceView text={detail.source} line={line} label={`The Liquid source of ${slug}`} />
    return outcome && !outcome.ok ? <ErrorCard error={outcome.error} /> : <Loading />
  }
  if (tab === 'variables') return variablesTab(model)
  if (!outcome) return <Loading />
  if (!outcome.ok)
    return (
      <ErrorCard error={outcome.error} lineHref={(place) => liquidLineHref(model, slug, place)} />
    )
  const answer = outcome.preview
  switch (tab) {
    case 'text':
      return (
        <pre class="text-body" id="template-text" tabIndex={0}>
          {answer.text}
        </pre>
      )
    case 'source':
      return <SourceView text={answer.html} line={line} label="The rendered HTML source" />
    case 'checks':
      return (
        <ChecksTab
          prefix="template"
          report={answer.checks}
          error={null}
          lineHref={(n) =>
            formatHash({ view: 'templates', name: slug, params: sourceLineParams(n) })
          }
        />
      )
    default:
      return (
        <SandboxedFrame
          src={outcome.frame}
          title={`Preview of the template ${slug}`}
          view={view}
          fit={fit}
        />
      )
  }
}

/** The Variables tab of the session's template (a plain function: it reads the session's plain state in TemplatePanel's render). */
function variablesTab(model: TemplatesModel): VNode {
  const { outcome, detail, summary, showsCase, caseName } = model.session
  return (
    <VariablesTable
      detail={detail}
      names={detail?.variables ?? summary?.variables ?? []}
      values={outcome?.ok ? outcome.variables : null}
      valuesTitle={
        showsCase && caseName
          ? `Values in this render (fixture ${caseName})`
          : 'Values in this render'
      }
    />
  )
}

function Loading() {
  return (
    <Placeholder>
      <p>Loading…</p>
    </Placeholder>
  )
}

/** A place in the open template's own file (not a partial): a link to the Liquid tab at its line. */
function liquidLineHref(
  model: TemplatesModel,
  slug: string,
  { file, line }: SourceProblem,
): string | null {
  if (
    !model.session.detail ||
    line === undefined ||
    (file !== `${slug}.liquid` && file !== `${slug}.html`)
  )
    return null
  return formatHash({ view: 'templates', name: slug, params: sourceLineParams(line, 'liquid') })
}

/**
 * The Variables tab: what the template expects (each name whole, whether a send must supply it
 * and which fields under it, the description from front matter), then the values of the render
 * on screen.
 */
function VariablesTable({
  detail,
  names,
  values,
  valuesTitle,
}: {
  detail: TemplateDetail | null
  names: string[]
  values: Record<string, unknown> | null
  valuesTitle: string
}) {
  const declared = detail?.declared ?? {}
  const required = detail?.required ?? []
  // A name read only through `default` (a layout's preheader) and not declared is not expected
  // of a send: said apart, after the table, rather than listed as if a send should supply it.
  const defaulted = (name: string) =>
    declared[name] === undefined &&
    !required.some((p) => p === name || p.startsWith(`${name}.`) || p.startsWith(`${name}[`))
  const withDefault = detail ? names.filter(defaulted) : []
  const expected = names.filter((name) => !withDefault.includes(name))
  return (
    <div class="details">
      <h3>Expected variables</h3>
      {expected.length ? (
        <ExpectedTable expected={expected} declared={declared} required={required} />
      ) : (
        <p>
          {withDefault.length
            ? 'A send need give this template no variable.'
            : 'This template reads no variables.'}
        </p>
      )}
      {withDefault.length ? (
        <p class="muted" id="vars-with-default">
          Also read, each with a default (<code>{'{{ name | default: … }}'}</code>), so a send may
          leave {withDefault.length === 1 ? 'it' : 'them'} out:{' '}
          {withDefault.map((name, i) => (
            <span key={name}>
              {i ? ', ' : ''}
              <code class="var-name">{name}</code>
            </span>
          ))}
          .
        </p>
      ) : null}
      {values ? (
        <>
          <h3>{valuesTitle}</h3>
          <JsonBlock value={values} />
        </>
      ) : null}
    </div>
  )
}

/** Each expected name, whether a send must give it (or which fields under it), its description. */
function ExpectedTable({
  expected,
  declared,
  required,
}: {
  expected: string[]
  declared: TemplateDetail['declared']
  required: string[]
}) {
  return (
    <table class="vars vars-expected">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Required</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        {expected.map((name) => (
          <tr key={name}>
            <th scope="row">
              <code class="var-name">{name}</code>
            </th>
            <td>
              <Requirement name={name} required={required} />
            </td>
            <td>{declared[name]?.description ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** "required", "optional", or the required fields under the name: `.id`, `.items` (not the name again). */
function Requirement({ name, required }: { name: string; required: string[] }) {
  if (required.includes(name)) return <>required</>
  const fields = required.filter((p) => p.startsWith(`${name}.`)).map((p) => p.slice(name.length))
  if (!fields.length) return <span class="muted">optional</span>
  return (
    <>
      required:{' '}
      {fields.map((f, i) => (
        <span key={f}>
          {i ? ' ' : ''}
          <code class="chip">{f}</code>
        </span>
      ))}
    </>
  )
}
