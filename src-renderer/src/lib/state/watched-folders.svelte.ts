import type { RequestArgs, Result, VaultDeskBridge } from '../bridge.ts'
import type {
  TakenFile,
  WatchActivity,
  WatchedFolderView,
} from '../../../../src-main/ipc/contract.ts'
import { coalesced } from './coalesced.ts'

/** How many taken files the window lists. */
const shownFiles = 50

/**
 * Watched instrument folders as this window shows them: the folders with what their watchers
 * see, the files they took (the held ones first to decide on), and the latest thing each did.
 * Fed by `watch.activity`: any activity reads the folders and files again (coalesced).
 */
export class WatchedFolders {
  folders = $state.raw<WatchedFolderView[]>([])
  files = $state.raw<TakenFile[]>([])
  /** The latest activity of each folder, by its id, for a line under it. */
  latest = $state.raw<Readonly<Record<number, WatchActivity>>>({})
  loaded = $state(false)
  readonly #bridge: VaultDeskBridge
  readonly #reportError: (message: string) => void
  readonly #refresh = coalesced(() => this.#read())

  constructor(bridge: VaultDeskBridge, reportError: (message: string) => void) {
    this.#bridge = bridge
    this.#reportError = reportError
  }

  start(): () => void {
    const stop = this.#bridge.on('watch.activity', (activity) => {
      if (activity.folderId !== null) {
        this.latest = { ...this.latest, [activity.folderId]: activity }
      }
      void this.#refresh()
    })
    void this.#refresh()
    return stop
  }

  get held(): TakenFile[] {
    return this.files.filter((file) => file.outcome === 'held')
  }

  /** The folder a taken file came from, if it is still watched. */
  folderOf(file: TakenFile): WatchedFolderView | null {
    return (
      this.folders.find(
        (folder) =>
          folder.connectionId === file.connectionId &&
          folder.vaultId === file.vaultId &&
          folder.folder === file.folder,
      ) ?? null
    )
  }

  add(args: RequestArgs<'watch.add'>): Promise<Result<WatchedFolderView>> {
    return this.#after(this.#bridge.invoke('watch.add', args))
  }

  update(args: RequestArgs<'watch.update'>): Promise<Result<WatchedFolderView>> {
    return this.#after(this.#bridge.invoke('watch.update', args))
  }

  remove(id: number): Promise<Result<{ removed: true }>> {
    return this.#after(this.#bridge.invoke('watch.remove', { id }))
  }

  decide(
    takenFileId: number,
    decision: RequestArgs<'watch.decide'>['decision'],
  ): Promise<Result<TakenFile>> {
    return this.#after(this.#bridge.invoke('watch.decide', { takenFileId, decision }))
  }

  async #after<T>(answer: Promise<Result<T>>): Promise<Result<T>> {
    const result = await answer
    void this.#refresh()
    return result
  }

  async #read(): Promise<void> {
    const [folders, files] = await Promise.all([
      this.#bridge.invoke('watch.list', {}),
      this.#bridge.invoke('watch.files', { limit: shownFiles }),
    ])
    if (!folders.ok || !files.ok) {
      const error = !folders.ok ? folders.error : !files.ok ? files.error : null
      if (error) this.#reportError(`Watched folders could not be read: ${error.message}`)
      return
    }
    this.folders = folders.value
    // Held files first: they wait for the person.
    this.files = [
      ...files.value.filter((file) => file.outcome === 'held'),
      ...files.value.filter((file) => file.outcome !== 'held'),
    ]
    this.loaded = true
  }
}
