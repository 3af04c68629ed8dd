/** The inspector API, as the page uses it. Types mirror the server's records (kept local: the client is compiled on its own). */

export interface Address {
  name: string | null
  address: string
}

export interface Warning {
  code: string
  message: string
  variable?: string
}

export interface MessageRecord {
  id: string
  status: string
  createdAt: string
  project: string
  tokenHint: string
  template: string
  from: Address
  to: Address[]
  subject: string
  templateVariables: Record<string, unknown>
  html: string
  text: string
  warnings: Warning[]
}

export interface MessagePage {
  messages: MessageRecord[]
  total: number
}

export interface Health {
  status: string
  version: string
  templates: number
  messages: number
  dropped?: number
}

export interface SourceProblem {
  file?: string
  line?: number
  column?: number
  message?: string
}

export interface FixtureCaseInfo {
  name: string
  error?: string
}

export interface TemplateSummary {
  slug: string
  description: string | null
  variables: string[]
  updatedAt: string
  error?: SourceProblem
  fixtures: FixtureCaseInfo[]
}

export interface DeclaredVariable {
  description?: string
  example?: unknown
  required?: boolean
}

export interface TemplateDetail {
  slug: string
  description: string | null
  body: string
  variables: string[]
  required: string[]
  declared: Record<string, DeclaredVariable>
  updatedAt: string
  fixtures: FixtureCaseInfo[]
}

export interface RenderPreview {
  html: string
  text: string
  warnings: Warning[]
  missing: string[]
  variables: Record<string, unknown>
}

export interface TemplateChange {
  slug: string
  change: 'added' | 'changed' | 'removed'
  source: 'template' | 'partial' | 'fixture'
  path: string
}

/** An inspector error, in the contract's shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message)
  }
}

export const API = '/_sandbox/api'

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response
  try {
    response = await fetch(`${API}${path}`, { cache: 'no-store', ...init })
  } catch {
    throw new ApiError(0, 'network_error', 'sendbox is not answering; is it still running?')
  }
  if (response.status === 204) return undefined as T
  const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string; details?: unknown[] } } | null
  if (!response.ok) {
    const error = body?.error
    throw new ApiError(response.status, error?.code ?? 'http_error', error?.message ?? `The request failed with status ${response.status}.`, error?.details ?? [])
  }
  return body as T
}

export const messagePath = (id: string) => `${API}/messages/${encodeURIComponent(id)}`
export const templatePath = (slug: string) => `${API}/templates/${encodeURIComponent(slug)}`

export const api = {
  health: () => request<Health>('/health'),
  messages: (query: URLSearchParams) => request<MessagePage>(`/messages?${query}`),
  message: (id: string) => request<MessageRecord>(`/messages/${encodeURIComponent(id)}`),
  deleteMessage: (id: string) => request<void>(`/messages/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  clearMessages: (query: URLSearchParams) => request<void>(`/messages?${query}`, { method: 'DELETE' }),
  templates: () => request<{ templates: TemplateSummary[] }>('/templates'),
  template: (slug: string) => request<TemplateDetail>(`/templates/${encodeURIComponent(slug)}`),
  render: (slug: string, caseName: string | null) => request<RenderPreview>(`/templates/${encodeURIComponent(slug)}/render${caseName ? `?case=${encodeURIComponent(caseName)}` : ''}`),
}
