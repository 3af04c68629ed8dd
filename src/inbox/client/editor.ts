import { h, replace } from './dom.js'
import { parseVariables, type Parsed, type Variables } from './variables.js'

/**
 * The live variables editor beside a template preview: JSON in a textarea, re-rendered a moment
 * after typing stops; an inline error (and the last good render kept) while the JSON does not
 * parse; and "Save as fixture case". (What the variables leave out is shown once, above the
 * preview, by the view.)
 */

export type SaveResult = { ok: true; file: string } | { ok: false; code: string; message: string }

export interface EditorHooks {
  /** Valid variables, after typing paused (DEBOUNCE_MS). */
  onVariables(variables: Variables): void
  /** Back to the fixture case (or the examples). */
  onReset(): void
  onSave(name: string, variables: Variables, overwrite: boolean): Promise<SaveResult>
}

export const DEBOUNCE_MS = 250

/** What the server takes as a case name (src/templates/slug.ts), minus "default" (the <slug>.json case). */
const CASE_NAME = /^[A-Za-z0-9._-]{1,128}$/
const validCaseName = (name: string) =>
  CASE_NAME.test(name) && name !== '.' && name !== '..' && name !== 'default'

export class VariablesEditor {
  readonly root: HTMLElement
  readonly textarea: HTMLTextAreaElement
  private readonly status: HTMLElement
  private readonly error: HTMLElement
  private readonly edited: HTMLElement
  private readonly resetButton: HTMLButtonElement
  private readonly nameInput: HTMLInputElement
  private readonly saveMessage: HTMLElement
  private timer = 0
  private cases: string[] = []

  constructor(private readonly hooks: EditorHooks) {
    this.textarea = h('textarea', {
      id: 'vars-json',
      class: 'vars-json',
      rows: 6,
      spellcheck: 'false',
      autocomplete: 'off',
      autocapitalize: 'off',
      wrap: 'off',
      'aria-describedby': 'vars-help vars-error',
      oninput: () => this.onInput(),
    })
    this.status = h('p', {
      class: 'render-status',
      id: 'render-status',
      role: 'status',
      'aria-live': 'polite',
      'data-state': 'idle',
    })
    this.error = h('p', { class: 'field-error', id: 'vars-error', hidden: true })
    this.resetButton = h(
      'button',
      {
        type: 'button',
        class: 'link-button',
        id: 'reset-vars',
        onclick: () => this.hooks.onReset(),
      },
      'Reset',
    )
    this.edited = h(
      'span',
      { class: 'edited', id: 'vars-edited', hidden: true },
      'Edited · ',
      this.resetButton,
    )
    this.nameInput = h('input', {
      id: 'case-name',
      class: 'text-input',
      type: 'text',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'e.g. long-name',
      maxlength: 128,
      'aria-describedby': 'save-case-message',
      oninput: () => this.clearSaveMessage(),
    })
    this.saveMessage = h('div', {
      class: 'save-message',
      id: 'save-case-message',
      'aria-live': 'polite',
    })
    const form = h(
      'form',
      {
        class: 'save-case',
        id: 'save-case-form',
        'aria-label': 'Save as fixture case',
        onsubmit: (event: Event) => {
          event.preventDefault()
          void this.save(false)
        },
      },
      h('label', { for: 'case-name' }, 'Case name'),
      h(
        'div',
        { class: 'save-row' },
        this.nameInput,
        h('button', { type: 'submit', class: 'btn', id: 'save-case' }, 'Save as fixture case'),
      ),
      this.saveMessage,
    )
    this.root = h(
      'aside',
      { class: 'vars-editor', id: 'vars-editor', 'aria-label': 'Variables' },
      h(
        'div',
        { class: 'vars-head' },
        h(
          'label',
          { for: 'vars-json', class: 'vars-label' },
          'Variables ',
          h('span', { class: 'muted' }, '(JSON)'),
        ),
        this.edited,
      ),
      h('p', { class: 'hint', id: 'vars-help' }, 'Edit and the preview follows as you type.'),
      this.textarea,
      this.error,
      this.status,
      form,
    )
  }

  /** Replaces the text (the case changed, or a reset): pretty-printed, no error. */
  setValue(variables: Variables): void {
    window.clearTimeout(this.timer)
    this.textarea.value = JSON.stringify(variables, null, 2)
    this.fitRows()
    this.showError(null)
  }

  read(): Parsed {
    return parseVariables(this.textarea.value)
  }

  setStatus(text: string, state: 'busy' | 'ok' | 'error' | 'idle'): void {
    this.status.dataset.state = state
    if (this.status.textContent !== text) this.status.textContent = text
  }

  /** Whether the text differs from the case (or examples) it started from; `base` names those. */
  setEdited(edited: boolean, base: string): void {
    this.edited.hidden = !edited
    this.resetButton.textContent = `Reset to ${base}`
  }

  /** The existing cases, to say "already exists" before asking the server. */
  setCases(names: string[]): void {
    this.cases = names
  }

  /** As many rows as the JSON has lines, within reason (the wide layout gives it the column anyway). */
  private fitRows(): void {
    const lines = this.textarea.value.split('\n').length
    this.textarea.rows = Math.min(16, Math.max(4, lines + 1))
  }

  private onInput(): void {
    this.fitRows()
    window.clearTimeout(this.timer)
    this.timer = window.setTimeout(() => {
      const parsed = this.read()
      if (!parsed.ok) {
        this.showError(parsed.message)
        this.setStatus('The JSON has an error: the preview shows the last good render.', 'error')
        return
      }
      this.showError(null)
      this.hooks.onVariables(parsed.variables)
    }, DEBOUNCE_MS)
  }

  private showError(message: string | null): void {
    this.error.hidden = message === null
    this.error.textContent = message ?? ''
    if (message === null) this.textarea.removeAttribute('aria-invalid')
    else this.textarea.setAttribute('aria-invalid', 'true')
  }

  private clearSaveMessage(): void {
    this.nameInput.removeAttribute('aria-invalid')
    replace(this.saveMessage)
    delete this.saveMessage.dataset.state
  }

  private saveNote(state: 'ok' | 'error', ...content: (Node | string)[]): void {
    this.saveMessage.dataset.state = state
    replace(this.saveMessage, h('p', null, content))
  }

  private async save(overwrite: boolean): Promise<void> {
    const name = this.nameInput.value.trim()
    const parsed = this.read()
    if (!parsed.ok) {
      this.saveNote('error', 'Fix the JSON first: ', parsed.message)
      return
    }
    if (!validCaseName(name)) {
      this.nameInput.setAttribute('aria-invalid', 'true')
      this.saveNote(
        'error',
        name
          ? 'A case name is letters, digits, "-", "_" and "." (not "default").'
          : 'Give the case a name first.',
      )
      this.nameInput.focus()
      return
    }
    if (!overwrite && this.cases.includes(name))
      return this.conflict(name, `A case named "${name}" already exists.`)
    const result = await this.hooks.onSave(name, parsed.variables, overwrite)
    if (result.ok) {
      this.nameInput.value = ''
      this.nameInput.removeAttribute('aria-invalid')
      this.saveNote('ok', 'Saved as ', h('code', null, result.file), '.')
      return
    }
    if (result.code === 'fixture_exists')
      return this.conflict(name, `A case named "${name}" already exists.`)
    this.nameInput.setAttribute('aria-invalid', String(result.code === 'validation_failed'))
    this.saveNote('error', result.message)
  }

  /** The name is taken: say so, and offer to overwrite it on purpose. */
  private conflict(name: string, message: string): void {
    this.nameInput.setAttribute('aria-invalid', 'true')
    const overwrite = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-quiet btn-danger-text',
        id: 'overwrite-case',
        onclick: () => void this.save(true),
      },
      `Overwrite ${name}`,
    )
    this.saveNote('error', message, ' ', overwrite)
  }
}
