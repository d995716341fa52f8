/**
 * What a cached file can show on its page: its text, or its image, read from the base64 contents
 * the vault sent. Anything else (or anything too large to read comfortably) is not previewed.
 */
import type { BrowseKind } from './browse-kinds.ts'

export type FilePreview =
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'image'; url: string }
  | { kind: 'none' }

const imageTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml'])
const textTypes = /^(text\/|application\/(json|xml|csv)|chemical\/)/
/** 192 KiB: a multiple of 3 bytes, so that it ends on a whole group of base64 characters. */
const textLimit = 196_608

export function filePreview(mimeType: string | null, contents: unknown): FilePreview {
  if (typeof contents !== 'string' || contents === '' || mimeType === null) return { kind: 'none' }
  const type = mimeType.toLowerCase().split(';')[0]!.trim()
  if (imageTypes.has(type)) return { kind: 'image', url: `data:${type};base64,${contents}` }
  if (!textTypes.test(type)) return { kind: 'none' }
  try {
    const binary = atob(contents.slice(0, (textLimit / 3) * 4))
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0))
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
    return { kind: 'text', text, truncated: contents.length * 0.75 > textLimit }
  } catch {
    return { kind: 'none' }
  }
}

/** The page of the record a file is attached to, from the vault's `resource_class`. */
export function attachedKind(resourceClass: string | null): BrowseKind | null {
  const kinds: Record<string, BrowseKind> = {
    molecule: 'molecules',
    protocol: 'protocols',
    run: 'runs',
    eln_entry: 'eln_entries',
  }
  return resourceClass === null ? null : (kinds[resourceClass] ?? null)
}
