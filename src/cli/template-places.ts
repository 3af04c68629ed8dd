import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { lineColumn } from '../lib/json.js'
import type { Template } from '../templates/types.js'

/**
 * Where an element of the rendered HTML is in the template's files, when that can be known
 * without a source map: its start tag, as rendered, written once and literally in the template,
 * its layout or a partial it renders (`<html>` in the layout, `<img src="logo.png">` in the
 * template). A tag with a variable in it (`<a href="{{ url }}">`) renders differently from how
 * it is written and is not found: the finding then keeps its place in the rendered HTML.
 */

/** `{% layout "x" %}`, `{% render 'x' %}`, `{% include "x" %}`: the files a source names. */
const USES = /\{%-?\s*(?:layout|render|include)\s+["']([^"']+)["']/g
/** A layout holds partials that hold partials; three levels cover what people write. */
const MAX_DEPTH = 3

/** Reads files once per check run: the same layout serves every template. */
export class TemplateSources {
  readonly #texts = new Map<string, Promise<string | null>>()
  readonly #files = new Map<string, Promise<Array<{ file: string; text: string }>>>()

  constructor(readonly templatesDir: string) {}

  read(file: string): Promise<string | null> {
    let text = this.#texts.get(file)
    if (!text) {
      text = readFile(file, 'utf8').catch(() => null)
      this.#texts.set(file, text)
    }
    return text
  }

  /** The template's file, then the layouts and partials it names, breadth first (once a run). */
  files(template: Template): Promise<Array<{ file: string; text: string }>> {
    let files = this.#files.get(template.file)
    if (!files) {
      files = this.#walk(template)
      this.#files.set(template.file, files)
    }
    return files
  }

  async #walk(template: Template): Promise<Array<{ file: string; text: string }>> {
    const out: Array<{ file: string; text: string }> = []
    const seen = new Set<string>()
    let level = [template.file]
    for (let depth = 0; depth <= MAX_DEPTH && level.length; depth++) {
      const next: string[] = []
      for (const file of level) {
        if (seen.has(file)) continue
        seen.add(file)
        // The template's own text is in memory (its body): its file is read only to place a tag
        // found there. Reading every template again cost 180 ms of 300 templates' check.
        const text = file === template.file ? template.body : await this.read(file)
        if (text === null) continue
        out.push({ file, text })
        for (const m of text.matchAll(USES)) next.push(...this.#candidates(m[1]!))
      }
      level = next
    }
    return out
  }

  #candidates(name: string): string[] {
    const base = path.resolve(this.templatesDir, name)
    return path.extname(base) ? [base] : [`${base}.liquid`, `${base}.html`]
  }

  /**
   * The file, line and column of the element whose start tag begins at `line`:`column` of the
   * rendered `html`; null when the tag is not written exactly once in the template's files.
   *
   * @example
   * await sources.place(template, '<html lang="en">…', 1, 1)
   * // { file: '/app/templates/layouts/base.liquid', line: 9, column: 1 }
   */
  async place(
    template: Template,
    html: string,
    line: number,
    column: number,
  ): Promise<{ file: string; line: number; column: number } | null> {
    let offset = 0
    for (let l = 1; l < line; l++) offset = html.indexOf('\n', offset) + 1
    offset += column - 1
    const end = html.indexOf('>', offset)
    if (html[offset] !== '<' || end < 0) return null
    const tag = html.slice(offset, end + 1)
    let found: { file: string; at: number } | null = null
    for (const { file, text } of await this.files(template)) {
      const at = text.indexOf(tag)
      if (at < 0) continue
      if (found || text.indexOf(tag, at + 1) >= 0) return null // written twice: which one?
      found = { file, at }
    }
    if (!found) return null
    if (found.file !== template.file)
      return { file: found.file, ...lineColumn((await this.read(found.file))!, found.at) }
    // In the body: past the front matter, in the file.
    const source = await this.read(template.file)
    if (source === null) return null
    return {
      file: template.file,
      ...lineColumn(source, Math.max(0, source.lastIndexOf(template.body)) + found.at),
    }
  }
}
