/**
 * What the keyboard-only suites ask of a page: what has focus, as a person would say it, whether
 * a focus indicator is drawn on it, and Tab pressed until the focus reaches something.
 */
import type { Locator, Page } from 'playwright-core'
import { expect } from 'vitest'

export interface Focus {
  name: string
  visible: boolean
}

/** What has focus, and whether a ring is drawn on it or on a frame around it (a grid's table). */
export async function focusOf(page: Page): Promise<Focus> {
  return (await page.evaluate(`(() => {
    const element = document.activeElement
    if (!element || element === document.body) return { name: 'nothing', visible: false }
    const label = element.labels?.[0]?.textContent
    const name = element.getAttribute('aria-label') ?? label ?? element.textContent ?? ''
    let drawn = false
    for (let around = element, level = 0; around && level < 3 && !drawn; around = around.parentElement, level++) {
      const style = getComputedStyle(around)
      drawn = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow.includes('inset') || (around === element && style.boxShadow !== 'none')
    }
    return {
      name: element.tagName.toLowerCase() + ': ' + name.trim().replace(/\\s+/g, ' '),
      visible: element.matches(':focus-visible') && drawn,
    }
  })()`)) as Focus
}

/**
 * Presses Tab (or Shift+Tab) until the focus is on what `wanted` names (inside `inside` when
 * given), then checks a focus indicator is drawn; fails past `steps`, naming what it went through.
 */
export async function tabTo(
  page: Page,
  wanted: RegExp,
  { back = false, steps = 80, inside }: { back?: boolean; steps?: number; inside?: Locator } = {},
): Promise<void> {
  const seen: string[] = []
  for (let step = 0; step < steps; step++) {
    const now = await focusOf(page)
    const within =
      inside === undefined ||
      (await inside.evaluate((element) => element.contains(element.ownerDocument.activeElement)))
    if (wanted.test(now.name) && within) {
      expect(now.visible, `a focus indicator on ${now.name}`).toBe(true)
      return
    }
    seen.push(now.name)
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab')
  }
  throw new Error(`Tab never reached ${wanted}; it went through: ${seen.join(' | ')}`)
}
