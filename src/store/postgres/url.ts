/**
 * A PostgreSQL store's URL, as said to people: `host:port/database`, never the user or the
 * password (they stay in the URL handed to the client, and nowhere else).
 *
 * @example
 * storeName('postgres://app:s3cret@db.internal:5432/sendbox?sslmode=require') // 'db.internal:5432/sendbox'
 */
export function storeName(url: string): string {
  try {
    const parsed = new URL(url)
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)'
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}/${database}`
  } catch {
    return 'the PostgreSQL URL given (unreadable)'
  }
}

/** Whether a `--store` value is a URL the PostgreSQL store takes. */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value.trim())
