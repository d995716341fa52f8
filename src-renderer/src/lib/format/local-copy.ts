import type { ConnectionStatus } from '../bridge.ts'

type LocalCopyRefusal = NonNullable<ConnectionStatus['localCopy']>

/** The short badge beside a connection whose local copy this version cannot open. */
export const localCopyBadge = 'Newer version’s copy'

/**
 * What the person needs to know about a local copy this version refused: whose it is, that
 * nothing happened to it, and what to do.
 */
export function describeLocalCopy(refusal: LocalCopyRefusal): string {
  switch (refusal.reason) {
    case 'newer_version':
      return (
        'This connection’s local copy was written by a newer version of Vault Desk ' +
        `(format ${refusal.schema}; this version reads up to ${refusal.known}). ` +
        'It was left exactly as it was: nothing in it was changed or lost. ' +
        'Open the newer Vault Desk to work with this connection, or to remove it.'
      )
  }
}
