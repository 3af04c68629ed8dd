import { useEffect, useLayoutEffect, useRef } from 'preact/hooks'
import type { SnapshotCase, SnapshotStatus, SnapshotSummary } from './api.js'
import { STATUS_WORDS, toReview, type ChangesModel } from './changes-model.js'
import {
  CHANGE_SCHEMES,
  CHANGE_WIDTHS,
  COMPARE_MODES,
  caseId,
  sameCase,
  type CaseKey,
  type CompareMode,
} from './changes-route.js'
import type { TabSpec } from './detail-route.js'
import { Compare, hasImages } from './compare.js'
import { DiffView } from './diff-view.js'
import { PreviewControls } from './frame.js'
import { countOf, ListPane } from './list-pane.js'
import { href, type Route } from './router.js'
import { Placeholder, Tabs } from './ui.js'

/**
 * The Changes view (docs/inbox.md#reviewing-changes): every case whose render is not its snapshot, live; the one
 * selected compared side by side (a swipe, an overlay, the screenshots) at a width and colour
 * scheme, with the text and HTML diffs beside; Accept, and Accept all. ChangesModel holds the
 * state; this draws it.
 */
export function ChangesView({ model, route }: { model: ChangesModel; route: Route }) {
  const detail = useRef<HTMLElement>(null)
  const open = model.open.value
  useLayoutEffect(() => {
    if (!route.name) model.keys.restoreFocus(detail.current)
  }, [route])
  useEffect(() => {
    document.title = open
      ? `${open.template} (${open.case}) · Changes · sendbox`
      : 'Changes · sendbox'
  }, [open?.template, open?.case])
  return (
    <div class="split" id="view-changes" data-open={String(!!open)}>
      <ChangeList model={model} />
      <section class="pane detail-pane" id="change-pane" aria-label="The change" ref={detail}>
        <ChangeDetail model={model} />
      </section>
    </div>
  )
}

const LIST_IDS = {
  pane: 'change-list-pane',
  title: 'changes-title',
  search: 'change-search',
  count: 'change-count',
  list: 'change-list',
}

/** A snapshot status as a pill with words, and what it means as its tooltip. */
export function ChangeBadge({ status }: { status: SnapshotStatus }) {
  const words = STATUS_WORDS[status]
  return (
    <span class="status-badge" data-status={`snapshot-${status}`} title={words.explain}>
      {words.label}
    </span>
  )
}

/** An empty list: the filter matches nothing, or nothing is left to review. */
function NoChanges({ filtered }: { filtered: boolean }) {
  if (filtered) return <p class="empty-title">No case matches</p>
  return (
    <>
      <p class="empty-title">Nothing to review</p>
      <p>
        Every render is its snapshot. Save a template, a partial or a fixture and the cases it
        changes show up here at once.
      </p>
    </>
  )
}

function ChangeList({ model }: { model: ChangesModel }) {
  const items = model.items.value
  const counts = model.counts.value
  const needle = model.filter.value.trim().toLowerCase()
  const open = model.open.value
  const shown = (items ?? []).filter(
    (s) => !needle || `${s.template} ${s.case}`.toLowerCase().includes(needle),
  )
  const left = toReview(counts)
  const acceptingAll = model.accepting.value.has('*')
  return (
    <ListPane
      nav={model.keys}
      ids={LIST_IDS}
      title="Changes"
      count={items ? countOf(items.length, 'case to review', 'cases to review') : null}
      searchLabel="Filter changes"
      search={model.filter.value}
      onSearch={(value) => {
        model.filter.value = value
      }}
      titleExtras={
        <>
          <span class="spacer" />
          <button
            type="button"
            class="btn btn-small"
            id="accept-all"
            disabled={!left || acceptingAll}
            title="Write every changed and new render as its snapshot (asks first)"
            onClick={() => void model.acceptAll()}
          >
            {acceptingAll ? 'Accepting…' : 'Accept all'}
          </button>
        </>
      }
      headExtras={
        counts ? (
          <p class="hint" id="changes-summary">
            {counts.changed} changed · {counts.new} new · {counts.obsolete} obsolete
            <br />
            Snapshots in <code>{model.folder.value || 'snapshots'}</code>
          </p>
        ) : null
      }
      empty={!items || shown.length ? null : <NoChanges filtered={items.length > 0} />}
    >
      {shown.map((s) => (
        <ChangeRow key={caseId(s)} s={s} href={model.hrefFor(s)} current={sameCase(s, open)} />
      ))}
    </ListPane>
  )
}

function ChangeRow({
  s,
  href: link,
  current,
}: {
  s: SnapshotSummary
  href: string
  current: boolean
}) {
  return (
    <li>
      <a
        class="item change-item"
        href={link}
        data-id={caseId(s)}
        data-status={s.status}
        aria-current={current ? 'true' : undefined}
      >
        <span class="item-top">
          <span class="item-subject item-slug">{s.template}</span>
          <ChangeBadge status={s.status} />
        </span>
        <span class="item-desc">
          <span class="visually-hidden">Case </span>
          <code class="chip">{s.case}</code>
          {s.error ? <span class="change-error"> does not render ({s.error.code})</span> : null}
        </span>
        {s.status === 'obsolete' ? (
          <span class="item-desc muted">Gone: Accept removes its snapshot</span>
        ) : null}
      </a>
    </li>
  )
}

function ChangeDetail({ model }: { model: ChangesModel }) {
  const open = model.open.value
  const state = model.detailState.value
  const detail = model.detail.value
  if (!open)
    return <NoCaseOpen nothingToReview={!!model.items.value && !model.items.value.length} />
  if (state === 'gone') return <CaseGone open={open} allHref={model.hrefFor(null)} />
  if (!detail || !sameCase(detail, open))
    return (
      <Placeholder>
        <p>{state === 'error' ? 'This case could not be loaded.' : 'Loading…'}</p>
      </Placeholder>
    )
  return (
    <article class="message change" aria-labelledby="change-title">
      <ChangeHead model={model} detail={detail} />
      <div class="change-body">
        <div class="change-main">
          <PreviewControls
            prefix="change"
            presets={CHANGE_WIDTHS}
            view={model.options.value.view}
            onChange={(view) => model.setView(view)}
            schemes={CHANGE_SCHEMES}
            imagesToggle={false}
          />
          <div
            class="panel change-panel"
            id="change-panel"
            {...(compareTabs(detail)
              ? { role: 'tabpanel', 'aria-labelledby': `change-tab-${selectedMode(model, detail)}` }
              : {})}
          >
            {detail.status === 'same' ? (
              <p class="note change-note">
                No change: the render is its snapshot (accepted, or put back as it was).
              </p>
            ) : null}
            <Compare model={model} detail={detail} />
          </div>
        </div>
        <ChangeDiffs detail={detail} />
      </div>
    </article>
  )
}

/** No case open: what the view is for, or that there is nothing to review. */
function NoCaseOpen({ nothingToReview }: { nothingToReview: boolean }) {
  return (
    <Placeholder>
      {nothingToReview ? (
        <p>Nothing to review: every render is its snapshot.</p>
      ) : (
        <p>Select a case to compare its snapshot with its render now.</p>
      )}
      <p class="hint">
        Swipe between them, lay one over the other, read the diffs, then accept the change or fix
        the template.
      </p>
    </Placeholder>
  )
}

/** The case in the URL is neither rendered nor snapshotted (any more). */
function CaseGone({ open, allHref }: { open: CaseKey; allHref: string }) {
  return (
    <Placeholder>
      <p>
        There is no case <code>{open.case}</code> of <code>{open.template}</code>, and no snapshot
        of it (any more).
      </p>
      <p>
        <a href={allHref}>All changes</a>
      </p>
    </Placeholder>
  )
}

/** The text and HTML diffs, beside the comparison (under it below 1280 px). */
function ChangeDiffs({ detail }: { detail: SnapshotCase }) {
  return (
    <aside class="change-diffs" aria-label="Diffs">
      <DiffView
        id="diff-text"
        title="Text"
        diff={detail.diff.text}
        same={sameWords(detail, 'text')}
      />
      <DiffView
        id="diff-html"
        title="HTML"
        diff={detail.diff.html}
        same={sameWords(detail, 'HTML')}
      />
    </aside>
  )
}

/** What a missing diff means for this case. */
function sameWords(detail: SnapshotCase, part: string): string {
  if (detail.error) return `No diff: the case does not render now.`
  return `The ${part} is the same as its snapshot.`
}

/** The comparison shown: the screenshots only when there are some. */
function selectedMode(model: ChangesModel, detail: SnapshotCase): string {
  const mode = model.options.value.mode
  return mode === 'images' && !hasImages(detail) ? 'swipe' : mode
}

/**
 * The ways to compare a case: swipe and overlay when it has both sides, the screenshots when it
 * has some; with one side and no screenshots, none (null).
 */
function compareTabs(detail: SnapshotCase): TabSpec[] | null {
  const images = hasImages(detail)
  if (detail.snapshot.html !== null && detail.current)
    return COMPARE_MODES.filter((m) => m.id !== 'images' || images)
  if (!images) return null
  return [
    { id: 'swipe', label: detail.current ? 'Render now' : 'Snapshot' },
    COMPARE_MODES.find((m) => m.id === 'images')!,
  ]
}

/** The header of a changed case that renders: it knows which of the status's two meanings it is. */
const CHANGED_NOW = 'The render differs from its snapshot.'

/** What Accept does to a case, said on the button's tooltip and beside it. */
function acceptWords(detail: SnapshotCase): { label: string; explain: string } {
  if (detail.status === 'obsolete')
    return {
      label: 'Remove snapshot',
      explain: `Its ${detail.error ? 'case' : 'template or case'} is gone: remove ${detail.files.html} and ${detail.files.text}.`,
    }
  if (detail.status === 'new')
    return { label: 'Accept', explain: `Write this render as its snapshot, ${detail.files.html}.` }
  return { label: 'Accept', explain: `Write this render over its snapshot, ${detail.files.html}.` }
}

function RenderError({ error }: { error: NonNullable<SnapshotCase['error']> }) {
  return (
    <p class="note note-warn change-error-note" role="note">
      <strong>Does not render now</strong> (<code>{error.code}</code>): {error.message} Fix it
      before accepting.
    </p>
  )
}

/** What the case's state means, and what Accept would do (`accepts`, when it can). */
function acceptExplain(detail: SnapshotCase, accepts: string): string {
  if (detail.status === 'same') return STATUS_WORDS.same.explain
  if (detail.error && detail.status === 'changed')
    return 'It no longer renders: its snapshot stays as it is until the template renders again.'
  return `${detail.status === 'changed' ? CHANGED_NOW : STATUS_WORDS[detail.status].explain} ${accepts}`
}

function ChangeHead({ model, detail }: { model: ChangesModel; detail: SnapshotCase }) {
  const key = { template: detail.template, case: detail.case }
  const accepting = model.accepting.value.has(caseId(key)) || model.accepting.value.has('*')
  const words = acceptWords(detail)
  const canAccept = detail.status !== 'same' && (detail.status === 'obsolete' || !!detail.current)
  const tabs = compareTabs(detail)
  return (
    <header class="message-head change-head">
      <a class="back" href={model.hrefFor(null)}>
        <span aria-hidden="true">← </span>
        Changes
      </a>
      <div class="title-line">
        <h2 id="change-title" tabIndex={-1}>
          {detail.template} <span class="change-case">{detail.case}</span>
        </h2>
        <ChangeBadge status={detail.status} />
        <div class="change-actions">
          <a class="btn btn-quiet" href={href('templates', detail.template, { case: detail.case })}>
            Open template
          </a>
          <button
            type="button"
            class="btn btn-primary"
            id="accept-change"
            disabled={!canAccept || accepting}
            aria-describedby="accept-explain"
            onClick={() => void model.accept(key)}
          >
            {accepting ? 'Accepting…' : words.label}
          </button>
        </div>
      </div>
      <p class="lede" id="accept-explain">
        {acceptExplain(detail, canAccept ? words.explain : '')}
      </p>
      {detail.error ? <RenderError error={detail.error} /> : null}
      <div class="toolbar">
        {tabs ? (
          <Tabs
            prefix="change"
            label="Compare"
            tabs={tabs}
            selected={selectedMode(model, detail)}
            onSelect={(mode) => model.setMode(mode as CompareMode)}
          />
        ) : (
          <p class="field-static">
            {detail.current
              ? 'The render now, with no snapshot to compare'
              : 'The snapshot, with no render to compare'}
          </p>
        )}
      </div>
    </header>
  )
}
