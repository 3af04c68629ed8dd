/**
 * Live previews (POST /_sandbox/api/previews): the newest rendered HTMLs, by id, for a frame to
 * load from a URL. Bounded: a variables editor posts one per edit, and only the last few are
 * ever loaded. One store per sandbox, in its context.
 */

/** The newest this many are kept. */
export const MAX_LIVE_PREVIEWS = 50

export interface PreviewStore {
  /** Keeps `html` (dropping the oldest past the bound) and returns its new id. */
  add(html: string): string
  get(id: string): string | undefined
}

/**
 * @example
 * const previews = createPreviewStore()
 * const id = previews.add('<p>Hi</p>') // 'pv_1_m3k…'
 * previews.get(id)                     // '<p>Hi</p>'
 */
export function createPreviewStore(max = MAX_LIVE_PREVIEWS): PreviewStore {
  const previews = new Map<string, string>()
  let seq = 0
  return {
    add(html) {
      const id = `pv_${(++seq).toString(36)}_${Date.now().toString(36)}`
      previews.set(id, html)
      if (previews.size > max) previews.delete(previews.keys().next().value!)
      return id
    },
    get: (id) => previews.get(id),
  }
}
