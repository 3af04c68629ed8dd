import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { json, jsonParseLinter } from '@codemirror/lang-json'
import {
  bracketMatching,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language'
import { linter } from '@codemirror/lint'
import { Annotation, Compartment, EditorState } from '@codemirror/state'
import { EditorView, drawSelection, keymap } from '@codemirror/view'
import { tags } from '@lezer/highlight'

/**
 * The variables editor's code editor: CodeMirror 6 with its JSON language (highlighting,
 * bracket matching, indentation) and its JSON lint (a parse error underlined at its place),
 * wrapping long lines. Loaded on demand (a chunk of its own, code-editor.js): the message list
 * never pays for it.
 *
 * Under the page's CSP (`style-src 'self'`, no inline styles): CodeMirror's style-mod writes its
 * styles into a `<style>` element when the editor is in the document (the CSP blocks that), and
 * into constructable stylesheets (`adoptedStyleSheets`, which CSP does not block) when it is in a
 * shadow root. So the editor lives in a shadow root of its host element; element styles are set
 * through CSSOM, which CSP allows. Colours come from the page's custom properties (they inherit
 * into the shadow root), so the editor follows the light and dark themes. ID references do not
 * cross a shadow root: the editable element is named with `aria-label` and described with
 * `aria-description` rather than pointing at the label outside.
 */

export interface JsonEditor {
  /** Replaces the text (a case picked, a reset): not reported back as typing. */
  setDoc(text: string): void
  /** The editable element's attributes now (`aria-invalid` and the description follow the error). */
  setAttributes(attributes: Record<string, string>): void
  focus(): void
  destroy(): void
}

export interface JsonEditorOptions {
  doc: string
  /** The text after each change the user made. */
  onChange(text: string): void
  /** Attributes of the editable element: its id, its name and description. */
  attributes: Record<string, string>
}

/**
 * Typing or pasting over a selection is done here, as one transaction, instead of by the
 * browser's editing: replacing text across lines, Chromium keeps the old text's look by writing
 * a `style` attribute into the editor, which the page's CSP refuses (a console error each time).
 */
const replaceSelections = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const range = replacedRange(event, view)
    if (!range) return false
    const text = event.inputType.startsWith('delete')
      ? ''
      : event.inputType === 'insertText' || event.inputType === 'insertReplacementText'
        ? (event.data ?? event.dataTransfer?.getData('text/plain') ?? '')
        : null
    if (text === null) return false
    event.preventDefault()
    view.dispatch({
      changes: { ...range, insert: text },
      selection: { anchor: range.from + text.length },
      userEvent: text ? 'input.type' : 'delete.selection',
      scrollIntoView: true,
    })
    return true
  },
})

/**
 * The text an input replaces, when it replaces some: what the browser says it targets; else
 * the selection in the DOM (in a shadow root the browser gives no target ranges, and the editor's
 * own selection may not have caught up with one just made, as by a select-all); else the
 * editor's. Null for an input at a caret (typing goes on as the browser does it).
 */
function replacedRange(event: InputEvent, view: EditorView): { from: number; to: number } | null {
  const span = (a: number, b: number) =>
    a === b ? null : { from: Math.min(a, b), to: Math.max(a, b) }
  const target = event.getTargetRanges()[0]
  if (target && !target.collapsed)
    return span(
      view.posAtDOM(target.startContainer, target.startOffset),
      view.posAtDOM(target.endContainer, target.endOffset),
    )
  const root = view.root as (ShadowRoot | Document) & { getSelection?: () => Selection | null }
  const dom = root.getSelection?.() ?? document.getSelection()
  if (
    dom?.anchorNode &&
    dom.focusNode &&
    !dom.isCollapsed &&
    view.contentDOM.contains(dom.anchorNode) &&
    view.contentDOM.contains(dom.focusNode)
  )
    return span(
      view.posAtDOM(dom.anchorNode, dom.anchorOffset),
      view.posAtDOM(dom.focusNode, dom.focusOffset),
    )
  const main = view.state.selection.main
  return main.empty ? null : { from: main.from, to: main.to }
}

/** A change made by the page, not typed: not reported to `onChange`. */
const external = Annotation.define<boolean>()

const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--code-key)' },
  { tag: tags.string, color: 'var(--code-string)' },
  { tag: tags.number, color: 'var(--code-number)' },
  { tag: [tags.bool, tags.null], color: 'var(--code-keyword)', fontWeight: '600' },
  { tag: [tags.brace, tags.squareBracket, tags.separator], color: 'var(--muted)' },
])

const theme = EditorView.theme({
  '&': {
    flex: '1 1 auto',
    minHeight: '0',
    color: 'var(--text)',
    backgroundColor: 'var(--bg)',
    border: '1px solid var(--border)',
    borderRadius: '7px',
    fontSize: '12.5px',
  },
  '&.cm-focused': { outline: '2px solid var(--accent)', outlineOffset: '-1px' },
  '.cm-content': { fontFamily: 'var(--mono)', padding: '8px 0', caretColor: 'var(--text)' },
  '.cm-line': { padding: '0 10px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '&.cm-focused .cm-cursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground':
    { backgroundColor: 'var(--accent-soft)' },
  '&.cm-focused .cm-matchingBracket': {
    backgroundColor: 'var(--accent-soft)',
    outline: '1px solid var(--accent)',
  },
  '&.cm-focused .cm-nonmatchingBracket': { backgroundColor: 'var(--danger-soft)' },
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy var(--danger)',
    textUnderlineOffset: '3px',
  },
  '.cm-tooltip': {
    color: 'var(--text)',
    backgroundColor: 'var(--surface)',
    border: '1px solid var(--border)',
  },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
})

/**
 * @example
 * const editor = createJsonEditor(host, { doc: '{}', onChange: typed, attributes: { id: 'vars-json' } })
 */
export function createJsonEditor(host: HTMLElement, options: JsonEditorOptions): JsonEditor {
  const shadow = host.shadowRoot ?? host.attachShadow({ mode: 'open' })
  const attributes = new Compartment()
  const attrs = (values: Record<string, string>) => EditorView.contentAttributes.of(values)
  const view = new EditorView({
    parent: shadow,
    root: shadow,
    state: EditorState.create({
      doc: options.doc,
      extensions: [
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        EditorView.lineWrapping,
        EditorState.tabSize.of(2),
        json(),
        linter(jsonParseLinter(), { delay: 250 }),
        syntaxHighlighting(highlight),
        // Tab is left to the page (moving the focus on), so the editor is no keyboard trap.
        keymap.of([...defaultKeymap, ...historyKeymap]),
        theme,
        replaceSelections,
        attributes.of(attrs(options.attributes)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged && !update.transactions.some((t) => t.annotation(external)))
            options.onChange(update.state.doc.toString())
        }),
      ],
    }),
  })
  return {
    setDoc(text) {
      if (text === view.state.doc.toString()) return
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        annotations: external.of(true),
      })
    },
    setAttributes(values) {
      view.dispatch({ effects: attributes.reconfigure(attrs(values)) })
    },
    focus: () => view.focus(),
    destroy: () => view.destroy(),
  }
}
