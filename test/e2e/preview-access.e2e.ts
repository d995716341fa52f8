/**
 * The browser harness's token in a real browser: the first load trades it for a cookie that
 * Chromium keeps (and hides from scripts), the address bar loses it, and the bridge's WebSocket
 * goes through with that cookie; a browser without it gets nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requirement } from '../support/environment.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled, watchForProblems } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

describe.runIf(available)('the preview token in Chromium', () => {
  let app: AppUnderTest

  beforeAll(async () => {
    app = await AppUnderTest.start()
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('signs in with the printed address, drops the token from it and keeps the hash', async () => {
    const { page, context, problems } = await app.open('#/molecules')
    try {
      expect(page.url()).toBe(`${app.harness.pageUrl}#/molecules`)
      const info = await page.evaluate("window.vaultDesk.invoke('app.info', {})")
      expect(info).toMatchObject({ ok: true, value: { host: 'web' } })
      expect(await page.evaluate('document.cookie')).toBe('')
      const [cookie] = await context.cookies(app.harness.origin)
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' })

      await page.reload()
      expect(page.url()).toBe(`${app.harness.pageUrl}#/molecules`)
      const again = await page.evaluate("window.vaultDesk.invoke('app.status', {})")
      expect(again).toMatchObject({ ok: true })
      expect(await problems()).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('shows a browser without the token nothing, and no secret', async () => {
    const context = await app.browser.newContext()
    try {
      const page = await context.newPage()
      await watchForProblems(page)
      const answer = await page.goto(app.harness.pageUrl)
      expect(answer?.status()).toBe(403)
      const text = await page.content()
      expect(text).not.toContain('data-secret')
      expect(text).toContain('Open that address')
      const wrong = await page.goto(`${app.harness.origin}/?token=${'A'.repeat(43)}`)
      expect(wrong?.status()).toBe(403)
      expect(await context.cookies(app.harness.origin)).toEqual([])
    } finally {
      await context.close()
    }
  })
})
