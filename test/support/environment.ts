/**
 * Suites that need Chromium or a secret service may skip on a machine without them, loudly; under
 * VAULT_DESK_REQUIRE_ALL=1 (CI) a missing requirement fails instead.
 */
export const requireAll = process.env.VAULT_DESK_REQUIRE_ALL === '1'

/** Returns true when the suite may run; otherwise warns (or throws under REQUIRE_ALL). */
export function requirement(available: boolean, what: string): boolean {
  if (available) return true
  const message = `${what} is not available on this machine`
  if (requireAll) throw new Error(`${message}, and VAULT_DESK_REQUIRE_ALL=1 forbids skipping.`)
  console.warn(`\n*** SKIPPING: ${message}. Install it to run this suite. ***\n`)
  return false
}
