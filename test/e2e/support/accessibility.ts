/**
 * The accessibility gate: axe-core checks a screen against the WCAG 2.2 A and AA rules in the
 * light and the dark colour scheme. Every page the e2e suites open is checked when the test asks
 * for its problems (the screen it ended on); a test checks the screens it passes on its way with
 * `checkAccessibility`. Justified exceptions are listed, with their reasons, in
 * `accessibility-exceptions.ts`, and nowhere else.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { accessibilityExceptions } from './accessibility-exceptions.ts'

const axeSource = fs.readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
)

/** The rule sets of WCAG 2.0, 2.1 and 2.2 at levels A and AA, as axe-core tags them. */
const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa']

const schemes = ['light', 'dark'] as const

/**
 * Turns transitions off while the check runs: a colour fades over 1 ms even with reduced motion,
 * and an element whose style is first computed by axe itself (off screen, in a popover) would
 * start its fade then and report the old scheme's colour. A constructed style sheet, which the
 * page's Content-Security-Policy does not govern.
 */
const stillStyles = `(() => {
  const sheet = new CSSStyleSheet()
  sheet.replaceSync('*, *::before, *::after { transition: none !important; animation: none !important }')
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
  window.__accessibilityStill = sheet
})()`

const movingStyles = `(() => {
  const sheet = window.__accessibilityStill
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((each) => each !== sheet)
})()`

/** Waits for the styles of a new colour scheme to apply: two frames. */
const settledStyles =
  'new Promise((settle) => requestAnimationFrame(() => requestAnimationFrame(settle)))'

interface AxeNode {
  target: string[]
  failureSummary?: string
}

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: AxeNode[]
}

/**
 * The violations on the page as it is now, in both colour schemes, exceptions aside; each as one
 * line naming the scheme, the rule, what it asks, and the elements (a few of them) that break it.
 * The page's own scheme is restored afterwards.
 */
export async function accessibilityViolations(page: Page, screen: string): Promise<string[]> {
  if (page.isClosed()) return []
  const original = (await page.evaluate(
    "matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'",
  )) as 'light' | 'dark'
  const found: string[] = []
  await page.evaluate(stillStyles)
  try {
    for (const scheme of [original, ...schemes.filter((other) => other !== original)]) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.evaluate(settledStyles)
      const violations = await runAxe(page)
      for (const violation of violations) {
        const nodes = violation.nodes.filter(
          (node) => !isException(violation.id, node.target.join(' ')),
        )
        if (nodes.length === 0) continue
        const targets = nodes
          .slice(0, 4)
          .map((node) => `${node.target.join(' ')}${summary(node)}`)
          .join('; ')
        const more = nodes.length > 4 ? ` (and ${nodes.length - 4} more)` : ''
        found.push(
          `accessibility (${screen}, ${scheme}): ${violation.id}: ${violation.help}: ${targets}${more}`,
        )
      }
    }
  } finally {
    if (!page.isClosed()) {
      await page.emulateMedia({ colorScheme: original })
      await page.evaluate(movingStyles)
    }
  }
  return found
}

/** Fails the test with every violation on the screen as it is now (see accessibilityViolations). */
export async function checkAccessibility(page: Page, screen: string): Promise<void> {
  const violations = await accessibilityViolations(page, screen)
  if (violations.length > 0) throw new Error(violations.join('\n'))
}

async function runAxe(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not
  // govern: the app's policy stays as strict as it ships.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource)
  const options = JSON.stringify({
    runOnly: { type: 'tag', values: wcagTags },
    resultTypes: ['violations'],
  })
  return (await page.evaluate(
    `window.axe.run(document, ${options}).then((results) => results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.map(String), failureSummary: node.failureSummary })),
    })))`,
  )) as AxeViolation[]
}

function isException(rule: string, target: string): boolean {
  return accessibilityExceptions.some(
    (exception) => exception.rule === rule && target.includes(exception.target),
  )
}

function summary(node: AxeNode): string {
  const text = node.failureSummary?.split('\n').slice(1).join(' ').trim()
  return text ? ` (${text.slice(0, 160)})` : ''
}
