/** What the top bar shows: pushed to every host whenever it changes. */
export interface AppStatus {
  /** True when the vault API answered recently; `navigator.onLine` is not consulted. */
  online: boolean
  syncing: boolean
  lastSyncAt: string | null
  outboxPending: number
}

export const initialAppStatus: AppStatus = {
  online: false,
  syncing: false,
  lastSyncAt: null,
  outboxPending: 0,
}
