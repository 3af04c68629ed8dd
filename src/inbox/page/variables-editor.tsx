import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { JsonEditor } from './code-editor.js'
import type { TemplatesModel } from './templates-model.js'

/**
 * The live variables editor beside a template preview: JSON in a code editor (CodeMirror,
 * loaded on demand), re-rendered a moment after typing stops; an error under it (and the last
 * good render kept) while the JSON does not parse; "Reset"; and "Save as fixture case". What
 * the variables leave out is said once, above the preview (template-notes.tsx).
 */
export function VariablesEditor({ model }: { model: TemplatesModel }) {
  model.version.value // the session's base name, in "Reset to …"
  const error = model.jsonError.value
  const status = model.status.value
  const edited = model.edited.value
  const editor = useRef<JsonEditor | null>(null)
  return (
    <aside class="vars-editor" id="vars-editor" aria-label="Variables">
      <div class="vars-head">
        <span class="vars-label" id="vars-label">
          Variables <span class="muted">(JSON)</span>
        </span>
        {edited ? (
          <span class="edited" id="vars-edited">
            Edited ·{' '}
            <button
              type="button"
              class="link-button"
              id="reset-vars"
              onClick={() => {
                model.resetVariables()
                editor.current?.focus()
              }}
            >
              Reset to {model.session.baseName}
            </button>
          </span>
        ) : null}
      </div>
      <p class="hint" id="vars-help">
        {HELP}
      </p>
      <CodeEditor model={model} error={error} handle={editor} />
      {error !== null ? (
        <p class="field-error" id="vars-error">
          {error}
        </p>
      ) : null}
      <p
        class="render-status"
        id="render-status"
        role="status"
        aria-live="polite"
        data-state={status.state}
      >
        {status.text}
      </p>
      <SaveCaseForm model={model} />
    </aside>
  )
}

/** The code editor, loaded when first shown; its text follows the model's when the page sets it. */
/** The help under the label, and what assistive technology hears of the editor with it. */
const HELP = 'Edit and the preview follows as you type.'

/** The editable element's attributes: its id, its name, and its description (the error when there is one). */
function editorAttributes(error: string | null): Record<string, string> {
  return {
    id: 'vars-json',
    // Focusable as any contenteditable, said outright (axe looks for it in the editor's scroller).
    tabindex: '0',
    'aria-label': 'Variables (JSON)',
    'aria-description': error ? `${error} ${HELP}` : HELP,
    ...(error ? { 'aria-invalid': 'true' } : {}),
  }
}

function CodeEditor({
  model,
  error,
  handle,
}: {
  model: TemplatesModel
  error: string | null
  handle: { current: JsonEditor | null }
}) {
  const host = useRef<HTMLDivElement>(null)
  const doc = model.editorDoc.value
  const [ready, setReady] = useState(false)
  useEffect(() => {
    let cancelled = false
    void import('./code-editor.js').then(({ createJsonEditor }) => {
      if (cancelled || !host.current) return
      handle.current = createJsonEditor(host.current, {
        doc: model.editorDoc.peek().text,
        onChange: (text) => model.typed(text),
        attributes: editorAttributes(model.jsonError.peek()),
      })
      setReady(true)
    })
    return () => {
      cancelled = true
      handle.current?.destroy()
      handle.current = null
    }
  }, [])
  useEffect(() => {
    handle.current?.setDoc(doc.text)
  }, [doc, ready])
  useEffect(() => {
    handle.current?.setAttributes(editorAttributes(error))
  }, [error, ready])
  return <div class="vars-code" ref={host} data-ready={ready ? 'true' : 'false'} />
}

/** What the server takes as a case name (src/templates/slug.ts), minus "default" (the <slug>.json case). */
const CASE_NAME = /^[A-Za-z0-9._-]{1,128}$/
const validCaseName = (name: string) =>
  CASE_NAME.test(name) && name !== '.' && name !== '..' && name !== 'default'

/** What came of a save, under the name box. */
type SaveNote = { state: 'ok' | 'error'; content: ComponentChildren }

/** "Save as fixture case": a name, and what came of it (saved, taken — with a way to overwrite —, refused). */
function SaveCaseForm({ model }: { model: TemplatesModel }) {
  const { name, invalid, note, input, save, typed } = useSaveCase(model)
  return (
    <form
      class="save-case"
      id="save-case-form"
      aria-label="Save as fixture case"
      onSubmit={(event) => {
        event.preventDefault()
        void save(name, false)
      }}
    >
      <label for="case-name">Case name</label>
      <div class="save-row">
        <input
          ref={input}
          id="case-name"
          class="text-input"
          type="text"
          autocomplete="off"
          spellcheck={false}
          placeholder="e.g. long-name"
          maxLength={128}
          aria-describedby="save-case-message"
          aria-invalid={invalid ? 'true' : undefined}
          value={name}
          onInput={(event) => typed((event.target as HTMLInputElement).value)}
        />
        <button type="submit" class="btn" id="save-case">
          Save as fixture case
        </button>
      </div>
      <div class="save-message" id="save-case-message" aria-live="polite" data-state={note?.state}>
        {note ? <p>{note.content}</p> : null}
      </div>
    </form>
  )
}

/**
 * The save form's state and what Save does: the JSON must parse and the name be one the server
 * takes; a name already taken asks before it overwrites.
 */
function useSaveCase(model: TemplatesModel) {
  const [name, setName] = useState('')
  const [invalid, setInvalid] = useState(false)
  const [note, setNote] = useState<SaveNote | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const conflict = (taken: string) => {
    setInvalid(true)
    setNote(takenNote(taken, () => void save(taken, true)))
  }
  const save = async (wanted: string, overwrite: boolean) => {
    const caseName = wanted.trim()
    const parsed = model.read()
    if (!parsed.ok) {
      setNote({ state: 'error', content: <>Fix the JSON first: {parsed.message}</> })
      return
    }
    if (!validCaseName(caseName)) {
      setInvalid(true)
      setNote({
        state: 'error',
        content: caseName
          ? 'A case name is letters, digits, "-", "_" and "." (not "default").'
          : 'Give the case a name first.',
      })
      input.current?.focus()
      return
    }
    if (!overwrite && model.cases.includes(caseName)) return conflict(caseName)
    const result = await model.saveCase(caseName, parsed.variables, overwrite)
    if (result.ok) {
      setName('')
      setInvalid(false)
      setNote({
        state: 'ok',
        content: (
          <>
            Saved as <code>{result.file}</code>.
          </>
        ),
      })
      return
    }
    if (result.code === 'fixture_exists') return conflict(caseName)
    setInvalid(result.code === 'validation_failed')
    setNote({ state: 'error', content: result.message })
  }
  /** Typing a name clears what the last save said. */
  const typed = (value: string) => {
    setName(value)
    setInvalid(false)
    setNote(null)
  }
  return { name, invalid, note, input, save, typed }
}

/** A case of that name exists: say so, with a button that overwrites it. */
function takenNote(taken: string, overwrite: () => void): SaveNote {
  return {
    state: 'error',
    content: (
      <>
        A case named "{taken}" already exists.{' '}
        <button
          type="button"
          class="btn btn-quiet btn-danger-text"
          id="overwrite-case"
          onClick={overwrite}
        >
          Overwrite {taken}
        </button>
      </>
    ),
  }
}
