/**
 * Which page the window shows, and so which URLs count as the app's own: the built renderer on
 * `vault-desk://app/`, or in development (unpackaged, started by `electron-vite dev`) the Vite dev
 * server. Only the one origin in use is trusted, never both.
 */
import { AppError } from '../shared/app-error.ts'
import { appStartUrl } from './app-origin.ts'

export interface RendererLocation {
  startUrl: string
  /** True for URLs on the origin the window was loaded from. */
  isAppUrl(url: string): boolean
}

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]'])

export function resolveRendererLocation(options: {
  isPackaged: boolean
  devServerUrl: string | undefined
}): RendererLocation {
  const devServerUrl = options.isPackaged ? undefined : options.devServerUrl?.trim()
  const startUrl = devServerUrl ? checkedDevServerUrl(devServerUrl) : appStartUrl
  const origin = new URL(startUrl)
  return {
    startUrl,
    isAppUrl(url) {
      const parsed = URL.parse(url)
      return parsed !== null && parsed.protocol === origin.protocol && parsed.host === origin.host
    },
  }
}

/** The dev server must be plain http on this machine: anything else is a mistake or an attack. */
function checkedDevServerUrl(value: string): string {
  const parsed = URL.parse(value)
  if (!parsed || parsed.protocol !== 'http:' || !loopbackHosts.has(parsed.hostname)) {
    throw new AppError(
      'invalid_argument',
      `ELECTRON_RENDERER_URL must be an http:// URL on localhost, got: ${value}`,
    )
  }
  return parsed.href
}
