/**
 * The one Content-Security-Policy of the renderer, served as a header by every host. No remote
 * scripts or connections: the Electron host allows no connections at all, the browser harness only
 * its own loopback WebSocket. Images may be data: or blob: URLs, because structure depictions are
 * shown as `<img src="data:image/svg+xml,...">` (an SVG in an img can run nothing). The one frame
 * source is blob:, for an attachment's PDF preview: the window makes the blob itself, typed
 * application/pdf, so Chromium's PDF viewer (its own sandboxed process) shows it and no page of
 * the vault's can run in the app's origin.
 */
export function contentSecurityPolicy(
  options: { connectSources?: readonly string[] } = {},
): string {
  const connect = options.connectSources?.length ? options.connectSources.join(' ') : "'none'"
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    'frame-src blob:',
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}
