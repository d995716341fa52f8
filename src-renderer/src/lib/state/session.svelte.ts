import type { AppInfo } from '../bridge.ts'
import type { VaultDeskBridge } from '../bridge.ts'
import { ChemDesk } from '../chem/chem-desk.svelte.ts'
import { AppStatusState } from './app-status.svelte.ts'
import { ConnectionsState } from './connections.svelte.ts'
import { RecordLists } from './record-lists.svelte.ts'
import { Router } from './router.svelte.ts'
import { DropDesk } from './drops.svelte.ts'
import { NoticesState } from './notices.svelte.ts'
import { OutboxActivity } from './outbox.svelte.ts'
import { BrowseScope, type ScopeMemory } from './scope.svelte.ts'
import { SyncActivity } from './sync.svelte.ts'
import { Toasts } from './toasts.svelte.ts'

/** A memory that forgets: for hosts (and tests) without local storage. */
export const noScopeMemory: ScopeMemory = { read: () => null, write: () => {} }

/** Everything the frame shows, built once per window around the host's bridge. */
export class Session {
  readonly toasts = new Toasts()
  readonly router = new Router()
  readonly bridge: VaultDeskBridge
  readonly status: AppStatusState
  /** What main tells until the person dismisses it (an outbox repaired, a folder held). */
  readonly notices: NoticesState
  readonly connections: ConnectionsState
  readonly scope: BrowseScope
  readonly sync: SyncActivity
  readonly lists: RecordLists
  readonly outbox: OutboxActivity
  /** Thumbnails, structure query boxes and structure index progress. */
  readonly chem: ChemDesk
  /** Files dropped anywhere in the window, waiting for the person to say where they go. */
  readonly drops = new DropDesk()
  /** Null until main has said which version and host this is. */
  appInfo = $state<AppInfo | null>(null)

  constructor(bridge: VaultDeskBridge, memory: ScopeMemory = noScopeMemory) {
    this.bridge = bridge
    const reportError = (message: string) => this.toasts.error(message)
    this.status = new AppStatusState(bridge, reportError)
    this.notices = new NoticesState(bridge, reportError)
    this.connections = new ConnectionsState(bridge, reportError)
    this.scope = new BrowseScope(bridge, this.connections, reportError, memory)
    this.sync = new SyncActivity(bridge, reportError)
    this.lists = new RecordLists(bridge, reportError)
    this.outbox = new OutboxActivity(bridge, reportError)
    this.chem = new ChemDesk(bridge)
  }

  start(target: Window): () => void {
    const stops = [
      this.status.start(),
      this.notices.start(),
      this.scope.start(),
      this.connections.start(),
      this.connections.onChange(() => {
        const ids = this.connections.list.map(({ id }) => id)
        this.lists.retainConnections(ids)
        this.chem.retainConnections(ids)
      }),
      this.sync.start(),
      this.lists.start(),
      this.outbox.start(),
      this.chem.start(),
      this.router.start(target),
      this.bridge.on('storage.failed', ({ message, details }) =>
        this.toasts.error(message, details),
      ),
    ]
    void this.bridge.invoke('app.info', {}).then((result) => {
      if (result.ok) this.appInfo = result.value
      else this.toasts.error(`Could not read the app's version: ${result.error.message}`)
    })
    return () => stops.forEach((stop) => stop())
  }
}
