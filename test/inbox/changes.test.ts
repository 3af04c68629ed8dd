// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { SnapshotCase, SnapshotSummary } from '../../src/inbox/page/api.js'
import { ChangesModel, toReview } from '../../src/inbox/page/changes-model.js'
import {
  compareParams,
  contentKey,
  DEFAULT_COMPARE,
  diffLines,
  diffStat,
  imageVariant,
  parseCaseId,
  readCompare,
} from '../../src/inbox/page/changes-route.js'
import { upperStyle } from '../../src/inbox/page/compare.js'
import { createPage } from '../../src/inbox/page/page.js'
import { parseHash } from '../../src/inbox/page/router.js'
import { fakeTiming } from './fake-timing.js'

/**
 * The Changes view without a browser: what its URL says, how a unified diff is read, and the
 * model's answers to the event stream (the count at once, one reload per burst, the open case
 * only when it is the one) and to an accept (review goes on to the next case).
 */

describe('the Changes view in the URL', () => {
  it('reads the mode, width, scheme and blend; a key left out keeps its value', () => {
    const read = readCompare(
      new URLSearchParams('mode=overlay&width=375&dark=media&blend=difference'),
      DEFAULT_COMPARE,
    )
    expect(read).toEqual({
      mode: 'overlay',
      view: { width: '375', dark: 'media', imagesOff: false },
      difference: true,
    })
    expect(readCompare(new URLSearchParams('case=x'), read)).toEqual(read)
    // Unknown values read as the defaults; Inverted is not a scheme here.
    expect(readCompare(new URLSearchParams('mode=side&width=9&dark=invert&blend=x'), read)).toEqual(
      DEFAULT_COMPARE,
    )
  })

  it('writes only what is not the default', () => {
    expect(compareParams(DEFAULT_COMPARE)).toEqual({
      mode: null,
      width: null,
      dark: null,
      blend: null,
    })
    expect(
      compareParams({
        mode: 'images',
        view: { width: '600', dark: 'media', imagesOff: false },
        difference: true,
      }),
    ).toEqual({ mode: 'images', width: '600', dark: 'media', blend: 'difference' })
  })

  it('names a case as template/case, and a route as #/changes/<template>?case=<case>', () => {
    expect(parseCaseId('welcome/big-order')).toEqual({ template: 'welcome', case: 'big-order' })
    expect(parseCaseId('welcome')).toBeNull()
    expect(parseCaseId('/x')).toBeNull()
    const route = parseHash('#/changes/welcome?case=default&mode=overlay')
    expect([route.view, route.name, route.params.get('case')]).toEqual([
      'changes',
      'welcome',
      'default',
    ])
  })

  it('shows the screenshot of the width and scheme: 375 at the phone width, 600 otherwise', () => {
    expect(imageVariant({ width: '375', dark: '', imagesOff: false })).toBe('375-light')
    expect(imageVariant({ width: '', dark: 'media', imagesOff: false })).toBe('600-dark')
    expect(imageVariant({ width: '1024', dark: '', imagesOff: false })).toBe('600-light')
  })
})

describe('the render now over the snapshot', () => {
  it('is cut at the divider in a swipe, see-through or blended in an overlay, as it is alone', () => {
    expect(upperStyle('swipe', DEFAULT_COMPARE, 30, 50)).toEqual({ clipPath: 'inset(0 0 0 30%)' })
    expect(upperStyle('overlay', DEFAULT_COMPARE, 30, 40)).toEqual({ opacity: '0.4' })
    expect(upperStyle('overlay', { ...DEFAULT_COMPARE, difference: true }, 30, 40)).toEqual({
      mixBlendMode: 'difference',
    })
    expect(upperStyle('single', DEFAULT_COMPARE, 30, 40)).toEqual({})
  })
})

describe('a unified diff, line by line', () => {
  const DIFF = [
    '--- snapshots/welcome/default.txt',
    '+++ welcome (default), rendered now',
    '@@ -3,4 +3,4 @@',
    ' Hello',
    '-Welcome, Ada!',
    '--- a line of dashes, removed',
    '+Hi, Ada!',
    ' Bye',
    '\\ No newline at end of file',
    '',
  ].join('\n')

  it('numbers each line on both sides, and tells a removed "---" line from the header', () => {
    expect(diffLines(DIFF)).toEqual([
      { kind: 'header', text: '--- snapshots/welcome/default.txt', before: null, after: null },
      { kind: 'header', text: '+++ welcome (default), rendered now', before: null, after: null },
      { kind: 'hunk', text: '@@ -3,4 +3,4 @@', before: null, after: null },
      { kind: 'same', text: 'Hello', before: 3, after: 3 },
      { kind: 'del', text: 'Welcome, Ada!', before: 4, after: null },
      { kind: 'del', text: '-- a line of dashes, removed', before: 5, after: null },
      { kind: 'add', text: 'Hi, Ada!', before: null, after: 4 },
      { kind: 'same', text: 'Bye', before: 6, after: 5 },
      { kind: 'note', text: '\\ No newline at end of file', before: null, after: null },
    ])
    expect(diffStat(diffLines(DIFF))).toEqual({ added: 1, removed: 2 })
  })

  it('fingerprints a text: the same text the same key, another text another', () => {
    expect(contentKey('<p>Hi</p>')).toMatch(/^[0-9a-f]{8}$/)
    expect(contentKey('<p>Hi</p>')).toBe(contentKey('<p>Hi</p>'))
    expect(contentKey('<p>Hi</p>')).not.toBe(contentKey('<p>Ho</p>'))
  })
})

describe('the Changes model', () => {
  const summary = (template: string, status: SnapshotSummary['status']): SnapshotSummary => ({
    template,
    case: 'default',
    status,
  })
  const COUNTS = { same: 1, changed: 1, new: 1, obsolete: 1 }
  const LIST = {
    snapshots: [
      summary('a-gone', 'obsolete'),
      summary('b-new', 'new'),
      summary('c-same', 'same'),
      summary('d-changed', 'changed'),
    ],
    counts: COUNTS,
    folder: 'snapshots',
  }
  let requests: string[]
  let list: typeof LIST
  let timing: ReturnType<typeof fakeTiming>
  beforeEach(() => {
    requests = []
    list = LIST
    timing = fakeTiming()
    window.location.hash = ''
    vi.stubGlobal('fetch', async (input: string, init?: RequestInit) => {
      const url = String(input)
      requests.push(`${init?.method ?? 'GET'} ${url}`)
      if (url.endsWith('/snapshots')) return Response.json(list)
      if (url.endsWith('/accept')) {
        list = {
          snapshots: LIST.snapshots.map((s) =>
            s.template === 'd-changed' ? { ...s, status: 'same' } : s,
          ),
          counts: { ...COUNTS, changed: 0, same: 2 },
          folder: 'snapshots',
        }
        return Response.json({
          template: 'd-changed',
          case: 'default',
          status: 'same',
          files: [],
          counts: { ...COUNTS, changed: 0, same: 2 },
        })
      }
      return Response.json({ template: 'd-changed', case: 'default' } as SnapshotCase)
    })
  })
  afterEach(() => vi.unstubAllGlobals())
  /** Lets the model's answers in (fetch and its json, a few turns). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

  it('lists what is to review, changed first, then new, then obsolete; the same are left out', async () => {
    const model = new ChangesModel(createPage(timing))
    await model.reload()
    expect(model.items.value?.map((s) => s.template)).toEqual(['d-changed', 'b-new', 'a-gone'])
    expect(toReview(model.counts.value)).toBe(2)
  })

  it('takes the count from a snapshot event at once, and reloads the list once per burst', async () => {
    const model = new ChangesModel(createPage(timing))
    const change = (template: string) => ({
      template,
      case: 'default',
      status: 'changed' as const,
      previous: 'same' as const,
      counts: { same: 0, changed: 3, new: 0, obsolete: 0 },
    })
    model.onSnapshot(change('x'))
    // The navigation's number moves with the event, before any request.
    expect(toReview(model.counts.value)).toBe(3)
    model.onSnapshot(change('y'))
    model.onSnapshot(change('z'))
    expect(requests).toEqual([])
    timing.advance(100)
    await settle()
    expect(requests).toEqual(['GET /_sandbox/api/snapshots'])
  })

  it('reloads the open case for its own events and its template, not for others', async () => {
    const model = new ChangesModel(createPage(timing))
    model.show(parseHash('#/changes/d-changed?case=default'))
    await settle()
    requests = []
    const event = {
      case: 'default',
      status: 'same' as const,
      previous: 'changed' as const,
      counts: COUNTS,
    }
    model.onSnapshot({ template: 'other', ...event })
    timing.advance(100)
    await settle()
    expect(requests).toEqual(['GET /_sandbox/api/snapshots'])
    requests = []
    model.onSnapshot({ template: 'd-changed', ...event })
    timing.advance(100)
    await settle()
    expect(requests.sort()).toEqual([
      'GET /_sandbox/api/snapshots',
      'GET /_sandbox/api/snapshots/d-changed/default',
    ])
    requests = []
    const saved = { change: 'changed' as const, source: 'partial' as const, path: 'x.liquid' }
    model.onTemplateChange({ slug: 'other', ...saved })
    timing.advance(100)
    expect(requests).toEqual([])
    model.onTemplateChange({ slug: 'd-changed', ...saved })
    timing.advance(100)
    await settle()
    expect(requests).toContain('GET /_sandbox/api/snapshots/d-changed/default')
  })

  it('after an accept, review goes on to the next case in the list', async () => {
    const page = createPage(timing)
    const model = new ChangesModel(page)
    model.show(parseHash('#/changes/d-changed?case=default'))
    await model.reload()
    await model.accept({ template: 'd-changed', case: 'default' })
    expect(requests).toContain('POST /_sandbox/api/snapshots/d-changed/default/accept')
    expect(toReview(model.counts.value)).toBe(1)
    expect(window.location.hash).toBe('#/changes/b-new?case=default')
    timing.advance(100)
    expect(page.announcement.value).toBe('Accepted d-changed (default); 1 change left to review')
  })
})
