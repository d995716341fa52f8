import { ApiError } from './errors.ts'

/**
 * Whether an address is this machine's loopback without asking a resolver: 127.0.0.0/8 (also as
 * an IPv4-mapped IPv6 address), ::1, and the literal name `localhost`, which every platform's
 * hosts file or resolver answers itself (RFC 6761). Other names are not, `x.localhost` included:
 * RFC 6761 asks resolvers to keep such names on the machine, but Node resolves through the
 * system's resolver, which outside systemd-resolved passes them to DNS (and its search domains),
 * where anyone may answer. The URL parser has already made IPv4 and IPv6 literals canonical.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === '::1') return true
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true
  // ::ffff:127.x.y.z, which the parser writes in hexadecimal (::ffff:7f00:1).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)
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
  if (url.protocol === 'http:' && isLoopbackUrl(url)) return url
  throw new ApiError({
    kind: 'insecure',
    operation,
    message: `refusing ${url.protocol}//${url.host}: HTTPS is required except for loopback addresses.`,
  })
}
