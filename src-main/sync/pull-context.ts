import type { CallOptions, VaultClient } from '../api/index.ts'
import type { ListForms } from './list-forms.ts'

/** What every request of one vault's pull needs: the client, the vault, and how to call. */
export interface PullContext {
  readonly client: VaultClient
  readonly vaultId: number
  /** The caller's signal and background priority: a person's own requests go first. */
  readonly call: CallOptions
  /** Which list form the vault answers, per kind; without it, the query form only. */
  readonly listForms?: ListForms
}
