/**
 * Chromium for the end-to-end suites: Debian's build driven by playwright-core, plus a watch on
 * each page for anything the Content-Security-Policy blocked and for every error the page logs.
 */
import fs from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import { accessibilityViolations } from './accessibility.ts'

export const chromiumPath = '/usr/bin/chromium'

export function chromiumInstalled(): boolean {
  return fs.existsSync(chromiumPath)
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * Runs in the page before any of its scripts. Kept as source text because this file is compiled
 * for Node, without the DOM's types.
 */
const recordViolations = `
  window.cspViolations = []
  document.addEventListener('securitypolicyviolation', (event) => {
    window.cspViolations.push('CSP blocked ' + (event.blockedURI || 'inline') + ' by ' + event.violatedDirective)
  })
`

/**
 * Collects console errors, uncaught exceptions, failed requests and CSP violations of a page, and
 * when asked, the accessibility violations of the screen it is on (`accessibility.ts`). The CSP
 * violation listener is installed before any page script, so nothing the app does escapes it.
 */
export async function watchForProblems(page: Page): Promise<() => Promise<string[]>> {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText
    // The browser's own icon request, cut short by a reload or navigation: not the app's doing.
    if (reason === 'net::ERR_ABORTED' && new URL(request.url()).pathname === '/favicon.svg') return
    problems.push(`request failed: ${request.url()} (${reason})`)
  })
  await page.addInitScript({ content: recordViolations })
  return async () => {
    if (page.isClosed()) return [...problems]
    const violations = (await page.evaluate('window.cspViolations ?? []')) as string[]
    const inaccessible = await accessibilityViolations(page, new URL(page.url()).hash || '/')
    return [...problems, ...violations, ...inaccessible]
  }
}
