/**
 * An address from a record that may be opened in the person's browser: https only, because the
 * app opens nothing else outside itself (and `javascript:` or `file:` addresses in a record must
 * never become links).
 */
export function safeExternalUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null
  try {
    const url = new URL(value.trim())
    return url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}
