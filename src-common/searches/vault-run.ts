/**
 * A saved search run on the vault: the service runs it as an export (always asynchronous), which
 * is polled, then downloaded to a file. Events of this shape follow it from start to end.
 */
export const vaultRunFormats = ['csv', 'sdf', 'json'] as const
export type VaultRunFormat = (typeof vaultRunFormats)[number]

export interface SavedSearchVaultRun {
  /** Names the run in these events and in `searches.cancelVaultRun`. */
  runId: string
  connectionId: string
  vaultId: number
  /** The saved search's own id and name. */
  searchId: number
  name: string
  format: VaultRunFormat
  /** The file it is downloaded to (under a temporary name until complete). */
  path: string
  /**
   * `waiting`: for one of the 3 export places this app may use at once; `queued`: the vault holds
   * it in its queue (`queuePosition` says where); `running`: the vault is running it;
   * `downloading`: the file is coming; then how it ended.
   */
  state: 'waiting' | 'queued' | 'running' | 'downloading' | 'completed' | 'failed' | 'cancelled'
  /** The vault's export id once it has one. */
  exportId: number | null
  queuePosition: number | null
  /** Bytes of the file downloaded so far. */
  bytes: number
  /** When the vault was last asked how far it is (ISO), or null. */
  checkedAt: string | null
  /** Once failed: why, in words (nothing was left on disk). */
  error?: { code: string; message: string }
}
