/**
 * Colours a plate's canvas takes from the page's tokens, read once per colour scheme. Reading a
 * computed style lays out the styles of a page just mounted, in the task that draws, before the
 * frame that would lay them out anyway: a map drawn as its page opens should not pay for that.
 */
import type { ColourScheme } from '../plots/colours.ts'

/** `read`'s answer for the scheme in force, read from `element`'s computed style the first time. */
export function perColourScheme<Value>(
  read: (style: CSSStyleDeclaration) => Value,
): (element: Element) => Value {
  const kept: Partial<Record<ColourScheme, Value>> = {}
  return (element) => {
    const scheme = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
    return (kept[scheme] ??= read(getComputedStyle(element)))
  }
}

/** A custom property of `style`, or `fallback` where it is not set. */
export function tokenOf(style: CSSStyleDeclaration, name: string, fallback: string): string {
  return style.getPropertyValue(name).trim() || fallback
}
