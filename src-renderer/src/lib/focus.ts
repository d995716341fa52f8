const focusableSelector = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',')

/** The elements inside `container` that Tab would reach, in document order. */
export function tabbableElements(container: Element): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(focusableSelector)].filter(
    (element) => element.tabIndex >= 0 && element.checkVisibility(),
  )
}

/**
 * Keeps Tab and Shift+Tab inside `container` by wrapping from the last element to the first and
 * back. Returns true when it moved focus itself.
 */
export function trapTab(event: KeyboardEvent, container: Element): boolean {
  if (event.key !== 'Tab') return false
  const elements = tabbableElements(container)
  const first = elements[0]
  const last = elements.at(-1)
  if (!first || !last) {
    event.preventDefault()
    return true
  }
  const active = document.activeElement
  const outside = !(active instanceof Node) || !container.contains(active)
  if (event.shiftKey && (active === first || outside)) {
    event.preventDefault()
    last.focus()
    return true
  }
  if (!event.shiftKey && (active === last || outside)) {
    event.preventDefault()
    first.focus()
    return true
  }
  return false
}
