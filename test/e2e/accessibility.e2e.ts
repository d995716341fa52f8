/**
 * The accessibility gate over every screen of the app (WCAG 2.2 A and AA, light and dark, through
 * axe-core: support/accessibility.ts): the welcome screen and its dialog, then on the demo vault
 * every section, every list, a record of every kind, the structure search and property ranges,
 * the results screen, the saved searches, the outbox and the gallery. The other e2e suites check
 * the screens they end their tests on; this one walks them all, so that a new screen is checked
 * the day it is routed.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sectionIds } from '../../src-common/records/kind-declaration.ts'
import {
  browseKinds,
  listHref,
  recordHref,
  type BrowseKind,
} from '../../src-renderer/src/lib/records/browse-kinds.ts'
import { requirement } from '../support/environment.ts'
import { accessibilityViolations } from './support/accessibility.ts'
import { AppUnderTest } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

/**
 * Whether the page scrolls sideways, and if so the widest element that sticks out (tables may
 * scroll within themselves: their own overflow is not the page's).
 */
async function sidewaysOverflow(page: Page): Promise<string | null> {
  return (await page.evaluate(`(() => {
    const root = document.scrollingElement
    if (root.scrollWidth <= root.clientWidth) return null
    let widest = null
    for (const element of document.querySelectorAll('body *')) {
      const right = element.getBoundingClientRect().right
      if (right > root.clientWidth && (!widest || right > widest.right)) {
        widest = { right, name: element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? '.' + element.className.trim().split(/\\s+/).join('.') : '') }
      }
    }
    return 'page is ' + root.scrollWidth + ' px wide in ' + root.clientWidth + (widest ? ', widest: ' + widest.name + ' to ' + Math.round(widest.right) : '')
  })()`)) as string | null
}

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

describe.runIf(available)('accessibility of every screen in Chromium', () => {
  let app: AppUnderTest
  let page: Page
  let problems: () => Promise<string[]>
  let connectionId: string
  let vaultId: number

  /** Goes to an address and waits until the screen has drawn what it asks the cache for. */
  async function visit(hash: string): Promise<void> {
    await page.evaluate(`location.hash = ${JSON.stringify(hash)}`)
    await page.getByRole('main').waitFor()
    await page.waitForLoadState('networkidle')
    await page
      .getByRole('progressbar')
      .first()
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => undefined)
    await page.waitForTimeout(300)
  }

  async function expectAccessible(screen: string): Promise<void> {
    expect.soft(await accessibilityViolations(page, screen), screen).toEqual([])
  }

  function firstRecord(kind: BrowseKind): number | null {
    const rows = app.services.browse.list(connectionId, vaultId, kind, { limit: 1 }).rows
    return rows[0]?.id ?? null
  }

  beforeAll(async () => {
    app = await AppUnderTest.start(
      { pull: { exportThreshold: Number.POSITIVE_INFINITY } },
      { seededDemoVault: true },
    )
    const session = await app.open()
    page = session.page
    problems = session.problems
  })

  afterAll(async () => {
    await app?.stop()
  })

  it('fails a screen with a violation, in the scheme it shows in', async () => {
    await page.getByRole('button', { name: 'Open the demo vault' }).waitFor()
    // Readable in the light scheme, 1.3:1 in the dark one; and an image without a text.
    await page.evaluate(`(() => {
      const probe = document.createElement('p')
      probe.id = 'gate-probe'
      probe.textContent = 'Probe'
      probe.style.cssText = 'color: #2a2f36; background: var(--color-surface)'
      const picture = document.createElement('img')
      picture.id = 'gate-picture'
      picture.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='
      document.querySelector('main').append(probe, picture)
    })()`)
    const found = await accessibilityViolations(page, 'probe')
    await page.evaluate(
      `document.querySelectorAll('#gate-probe, #gate-picture').forEach((node) => node.remove())`,
    )
    expect(found.filter((line) => line.includes('#gate-probe'))).toEqual([
      expect.stringMatching(/^accessibility \(probe, dark\): color-contrast: /),
    ])
    expect(found.filter((line) => line.includes('#gate-picture'))).toEqual([
      expect.stringMatching(/^accessibility \(probe, light\): image-alt: /),
      expect.stringMatching(/^accessibility \(probe, dark\): image-alt: /),
    ])
  })

  it('welcomes a person with no vault, and its connect dialog', async () => {
    await page.getByRole('button', { name: 'Open the demo vault' }).waitFor()
    await expectAccessible('welcome')
    await page.getByRole('button', { name: 'Connect to a vault' }).first().click()
    await page.getByRole('dialog').waitFor()
    await expectAccessible('connect dialog')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'detached' })
  })

  it('opens the demo vault', async () => {
    await page.getByRole('button', { name: 'Open the demo vault' }).click()
    await expect
      .poll(
        () =>
          page
            .getByRole('status')
            .filter({ hasText: /molecules$/ })
            .textContent(),
        {
          timeout: 60_000,
        },
      )
      .toBe('2,000 molecules')
    const demo = app.services.connections.list().find(({ name }) => name === 'Demo vault')!
    connectionId = demo.id
    await expect
      .poll(
        () =>
          app.services.sync.states().find((state) => state.connectionId === connectionId)
            ?.lastOutcome,
        {
          timeout: 110_000,
        },
      )
      .toBe('completed')
    vaultId = app.services.browse.vaults(connectionId)[0]!.id
  }, 240_000)

  it('checks every section and list', async () => {
    for (const section of sectionIds) {
      await visit(`#/${section}`)
      await expectAccessible(`section ${section}`)
    }
    for (const kind of browseKinds) {
      await visit(listHref(kind))
      await expectAccessible(`list ${kind}`)
    }
  }, 300_000)

  it('checks a record of every kind', async () => {
    for (const kind of browseKinds) {
      const id = firstRecord(kind)
      if (id === null) continue
      await visit(recordHref(kind, id))
      await expectAccessible(`record ${kind} ${id}`)
    }
  }, 300_000)

  it('fits every screen at 1280x720 and at 200% zoom without scrolling sideways', async () => {
    const screens = [
      ...sectionIds.map((section) => `#/${section}`),
      ...browseKinds.flatMap((kind) => {
        const id = firstRecord(kind)
        return id === null ? [] : [recordHref(kind, id)]
      }),
      '#/results',
      '#/saved-searches',
    ]
    // 200% zoom of a 1280x720 window lays the page out in 640x360 CSS pixels.
    for (const size of [
      { width: 1280, height: 720 },
      { width: 640, height: 360 },
    ]) {
      await page.setViewportSize(size)
      for (const hash of screens) {
        await visit(hash)
        expect
          .soft(await sidewaysOverflow(page), `${hash} at ${size.width}x${size.height}`)
          .toBeNull()
      }
    }
    // There the sidebar is a drawer: opened from the top bar, closed by Escape, focus given back.
    const toggle = page.getByRole('button', { name: 'Navigation' })
    const sections = page.getByRole('navigation', { name: 'Sections' })
    expect(await sections.isVisible()).toBe(false)
    await toggle.focus()
    await page.keyboard.press('Enter')
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    await sections.waitFor({ state: 'visible' })
    await expectAccessible('navigation drawer')
    await sections.getByRole('link').first().focus()
    await page.keyboard.press('Escape')
    await sections.waitFor({ state: 'hidden' })
    expect(await page.evaluate('document.activeElement?.id')).toBe('navigation-toggle')
    await page.keyboard.press('Enter')
    await sections.getByRole('link', { name: 'Batches' }).click()
    await sections.waitFor({ state: 'hidden' })
    expect(page.url()).toMatch(/#\/batches$/)
    await page.setViewportSize({ width: 1280, height: 800 })
    expect(await toggle.isVisible()).toBe(false)
  }, 300_000)

  it('checks the search tools of the molecule list', async () => {
    await visit('#/molecules')
    await page.getByRole('button', { name: /^Structure search/ }).click()
    await page.getByRole('region', { name: 'Structure search' }).waitFor()
    await page.getByRole('textbox', { name: 'Structure query' }).fill('c1ccncc1')
    await page.getByRole('img', { name: 'The query as drawn' }).waitFor()
    await page.waitForTimeout(1000)
    await expectAccessible('structure search')
    await page.getByRole('button', { name: /^Structure search/ }).click()
    const ranges = page.getByRole('button', { name: /^Property ranges/ })
    if ((await ranges.count()) > 0) {
      await ranges.first().click()
      await page.waitForTimeout(300)
      await expectAccessible('property ranges')
      await ranges.first().click()
    }
  })

  it('checks the results screen, the saved searches, the outbox and the gallery', async () => {
    await visit('#/assays')
    await page.getByRole('link', { name: 'Results' }).first().click()
    await page.waitForTimeout(1000)
    await expectAccessible('results')
    await visit('#/saved-searches')
    // The demo vault's saved searches, their criteria in words and what needs the vault.
    await page
      .getByRole('list', { name: 'Saved searches' })
      .getByRole('heading', { level: 2, name: 'Quinazoline cores', exact: true })
      .waitFor()
    await expectAccessible('saved searches')
    await visit('#/outbox')
    await expectAccessible('outbox')
    // A live region says what the outbox holds whenever it changes, without taking the focus.
    await page
      .getByRole('status')
      .filter({ hasText: /^Outbox empty$/ })
      .waitFor({ state: 'attached' })
    await visit('#/gallery')
    await expectAccessible('gallery')
    expect(await problems()).toEqual([])
  })
})
