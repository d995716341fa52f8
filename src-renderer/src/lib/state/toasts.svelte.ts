export type ToastKind = 'info' | 'success' | 'error'

export interface Toast {
  id: number
  kind: ToastKind
  title: string
  detail?: string
}

export interface Timers {
  set(callback: () => void, milliseconds: number): unknown
  clear(handle: unknown): void
}

const browserTimers: Timers = {
  set: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/**
 * Short notices in the corner. Information fades after a while; errors stay until dismissed,
 * because they say something went wrong that the person has to read. The same notice shown again
 * is not stacked twice: it stays, with its time restarted.
 */
export class Toasts {
  items = $state<Toast[]>([])
  readonly #timers: Timers
  readonly #lifetime: number
  readonly #limit: number
  // Timer handles are bookkeeping that nothing renders, so a plain Map is right here.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #expiry = new Map<number, unknown>()
  #nextId = 1

  constructor(options: { timers?: Timers; lifetimeMs?: number; limit?: number } = {}) {
    this.#timers = options.timers ?? browserTimers
    this.#lifetime = options.lifetimeMs ?? 6000
    this.#limit = options.limit ?? 4
  }

  info(title: string, detail?: string): number {
    return this.show('info', title, detail)
  }

  success(title: string, detail?: string): number {
    return this.show('success', title, detail)
  }

  error(title: string, detail?: string): number {
    return this.show('error', title, detail)
  }

  show(kind: ToastKind, title: string, detail?: string): number {
    const same = this.items.find(
      (toast) => toast.kind === kind && toast.title === title && toast.detail === detail,
    )
    const toast = same ?? { id: this.#nextId++, kind, title, ...(detail ? { detail } : {}) }
    if (!same) {
      this.items.push(toast)
      while (this.items.length > this.#limit) this.dismiss(this.items[0]!.id)
    }
    if (kind !== 'error') this.#expireLater(toast.id)
    return toast.id
  }

  dismiss(id: number): void {
    this.#timers.clear(this.#expiry.get(id))
    this.#expiry.delete(id)
    this.items = this.items.filter((toast) => toast.id !== id)
  }

  #expireLater(id: number): void {
    this.#timers.clear(this.#expiry.get(id))
    this.#expiry.set(
      id,
      this.#timers.set(() => this.dismiss(id), this.#lifetime),
    )
  }
}
