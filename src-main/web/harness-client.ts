/**
 * Served by the browser harness as a classic script ahead of the app: defines `window.vaultDesk`
 * over the harness's WebSocket, with the same shape the Electron preload gives. Self-contained on
 * purpose (the harness strips its types and serves it as is), so it imports nothing.
 */
{
  type Bridge = NonNullable<Window['vaultDesk']>
  type AnyResult =
    { ok: true; value: unknown } | { ok: false; error: { code: 'internal'; message: string } }
  type Listener = (payload: unknown) => void

  const secret = document.currentScript?.dataset.secret
  if (!secret) throw new Error('The Vault Desk harness script was loaded without its secret.')

  const socket = new WebSocket(`ws://${location.host}/bridge?secret=${encodeURIComponent(secret)}`)
  const pending = new Map<number, (result: AnyResult) => void>()
  const listeners = new Map<string, Set<Listener>>()
  let nextId = 1
  let closedBecause: string | null = null

  const failure = (message: string): AnyResult => ({
    ok: false,
    error: { code: 'internal', message },
  })

  const opened = new Promise<void>((resolve) => socket.addEventListener('open', () => resolve()))

  socket.addEventListener('message', (message) => {
    const data: unknown = JSON.parse(String(message.data))
    if (typeof data !== 'object' || data === null) return
    if ('event' in data && typeof data.event === 'string') {
      const payload = 'payload' in data ? data.payload : undefined
      for (const listener of listeners.get(data.event) ?? []) listener(payload)
      return
    }
    if ('id' in data && typeof data.id === 'number' && 'result' in data) {
      pending.get(data.id)?.(data.result as AnyResult)
      pending.delete(data.id)
    }
  })

  socket.addEventListener('close', (event) => {
    closedBecause = `The connection to the Vault Desk harness closed (code ${event.code}${
      event.reason ? `: ${event.reason}` : ''
    }). Reload the page to reconnect.`
    for (const resolve of pending.values()) resolve(failure(closedBecause))
    pending.clear()
  })

  const send = (channel: string, args: unknown): Promise<AnyResult> => {
    if (closedBecause !== null) return Promise.resolve(failure(closedBecause))
    const id = nextId++
    return new Promise((resolve) => {
      pending.set(id, resolve)
      void opened.then(() => socket.send(JSON.stringify({ id, channel, args })))
    })
  }

  const bridge: Bridge = {
    // The wire is untyped; main validates every argument and the contract types the answers.
    invoke: send as unknown as Bridge['invoke'],
    on(event, listener) {
      let set = listeners.get(event)
      if (!set) {
        set = new Set()
        listeners.set(event, set)
      }
      const stored = listener as Listener
      set.add(stored)
      return () => {
        set.delete(stored)
      }
    },
    pathForFile: () => null,
  }

  Object.defineProperty(window, 'vaultDesk', { value: Object.freeze(bridge), enumerable: true })
}
