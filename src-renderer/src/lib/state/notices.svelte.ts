import { SvelteSet } from 'svelte/reactivity'
import type { AppNotice, VaultDeskBridge } from '../bridge.ts'

/**
 * What main keeps telling until the person dismisses it (an outbox repaired before the window
 * opened, a data folder another process holds). Asked for at start, since it may have happened
 * before any window listened, then followed as main pushes changes.
 */
export class NoticesState {
  list = $state<AppNotice[]>([])
  /** Notices being dismissed: their buttons wait, and a second press sends nothing. */
  readonly dismissing = new SvelteSet<string>()
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  /** Listens first and then asks, so that no change is missed; a pushed list beats the answer. */
  start(): () => void {
    let pushed = false
    const stop = this.#bridge.on('notices.changed', ({ notices }) => {
      pushed = true
      this.list = notices
    })
    void this.#bridge.invoke('app.notices', {}).then((result) => {
      if (!result.ok) this.#reportError(`Could not read the app's notices: ${result.error.message}`)
      else if (!pushed) this.list = result.value
    })
    return stop
  }

  async dismiss(id: string): Promise<void> {
    if (this.dismissing.has(id)) return
    this.dismissing.add(id)
    try {
      const result = await this.#bridge.invoke('app.dismissNotice', { id })
      if (!result.ok) {
        this.#reportError(`Could not dismiss the notice: ${result.error.message}`)
        return
      }
      // Main pushes the new list too; this window need not wait for it.
      this.list = this.list.filter((notice) => notice.id !== id)
    } finally {
      this.dismissing.delete(id)
    }
  }
}
