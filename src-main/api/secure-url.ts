import { ApiError } from './errors.ts'

/** Loopback hosts may use plain HTTP: the simulator and tests never leave the machine. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (host === '::1') return true
  const ipv4 = host.replace(/^::ffff:/, '')
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ipv4)
}

/**
 * Parses and checks an address before anything is sent to it: HTTPS, or HTTP to a loopback
 * address. Everything else (plain HTTP on a network, other schemes) is refused.
 */
export function requireSecureUrl(address: string | URL, operation: string): URL {
  let url: URL
  try {
    url = new URL(address)
  } catch (error) {
    throw new ApiError({
      kind: 'insecure',
      operation,
      message: `"${String(address)}" is not a valid URL.`,
      cause: error,
    })
  }
  if (url.username || url.password) {
    throw new ApiError({
      kind: 'insecure',
      operation,
      message: `refusing ${url.origin}: credentials in the URL are not allowed.`,
    })
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url
  throw new ApiError({
    kind: 'insecure',
    operation,
    message: `refusing ${url.protocol}//${url.host}: HTTPS is required except for loopback addresses.`,
  })
}
