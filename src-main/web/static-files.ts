import fs from 'node:fs/promises'
import path from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

export function contentTypeOf(file: string): string {
  return contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream'
}

/** Why a request path could not be mapped to a file inside the served folder. */
export type StaticLookup =
  | { kind: 'file'; file: string }
  | { kind: 'malformed'; reason: string }
  | { kind: 'outside' }
  | { kind: 'missing' }

/**
 * Maps the raw path of a request (before any URL normalisation, so that `..` and its encodings
 * are seen) to a regular file inside `root`. Anything that would leave the folder, by `..`, an
 * encoded separator or a symbolic link, is refused rather than cleaned up.
 */
export async function resolveStaticFile(root: string, rawPath: string): Promise<StaticLookup> {
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPath)
  } catch {
    return { kind: 'malformed', reason: 'The path is not valid percent-encoding.' }
  }
  if (decoded.includes('\0')) return { kind: 'malformed', reason: 'The path contains NUL.' }
  if (decoded.includes('\\')) return { kind: 'malformed', reason: 'The path contains "\\".' }
  if (decoded.split('/').includes('..')) return { kind: 'outside' }

  const rootReal = await fs.realpath(root)
  const candidate = path.resolve(rootReal, `.${decoded}`)
  if (!isInside(rootReal, candidate)) return { kind: 'outside' }
  let real: string
  try {
    real = await fs.realpath(candidate)
  } catch {
    return { kind: 'missing' }
  }
  if (!isInside(rootReal, real)) return { kind: 'outside' }
  const stat = await fs.stat(real)
  return stat.isFile() ? { kind: 'file', file: real } : { kind: 'missing' }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate)
  const leaves = relative === '..' || relative.startsWith(`..${path.sep}`)
  return relative !== '' && !leaves && !path.isAbsolute(relative)
}
