import type { EventEmitter } from 'node:events'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { ipcPrefix } from '../ipc/channels.ts'
import type { VaultDeskBridge } from '../ipc/contract.ts'
import { initialAppStatus } from '../shared/app-status.ts'

/** The renderer side of Electron as the sandboxed preload sees it. */
const renderer = vi.hoisted(() => {
  const exposed = new Map<string, unknown>()
  return {
    exposed,
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: null as unknown as EventEmitter & { invoke: ReturnType<typeof vi.fn> },
    webUtils: { getPathForFile: vi.fn((_file: unknown) => '') },
  }
})

vi.mock('electron', async () => {
  const { EventEmitter } = await import('node:events')
  renderer.ipcRenderer = Object.assign(new EventEmitter(), { invoke: vi.fn() })
  return {
    contextBridge: renderer.contextBridge,
    ipcRenderer: renderer.ipcRenderer,
    webUtils: renderer.webUtils,
  }
})

let bridge: VaultDeskBridge

beforeAll(async () => {
  await import('./index.ts')
  bridge = renderer.exposed.get('vaultDesk') as VaultDeskBridge
})

beforeEach(() => {
  renderer.ipcRenderer.invoke.mockReset()
  renderer.ipcRenderer.removeAllListeners()
})

describe('the preload bridge', () => {
  it('exposes only window.vaultDesk', () => {
    expect([...renderer.exposed.keys()]).toEqual(['vaultDesk'])
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on', 'pathForFile'])
  })

  it('invokes a contract channel with the prefix and answers what main answered', async () => {
    renderer.ipcRenderer.invoke.mockResolvedValue({ ok: true, value: initialAppStatus })
    expect(await bridge.invoke('app.status', {})).toEqual({ ok: true, value: initialAppStatus })
    expect(renderer.ipcRenderer.invoke).toHaveBeenCalledWith(`${ipcPrefix}app.status`, {})
  })

  it('refuses an unknown channel without calling main', async () => {
    const invoke = bridge.invoke as (channel: string, args: unknown) => Promise<unknown>
    expect(await invoke('fs.readFile', {})).toEqual({
      ok: false,
      error: { code: 'unknown_channel', message: 'Unknown request channel: fs.readFile' },
    })
    expect(renderer.ipcRenderer.invoke).not.toHaveBeenCalled()
  })

  it('answers a request that could not be sent as an error value, never a rejection', async () => {
    renderer.ipcRenderer.invoke.mockRejectedValue(new Error('An object could not be cloned.'))
    expect(await bridge.invoke('connections.list', {})).toEqual({
      ok: false,
      error: {
        code: 'internal',
        message: 'Cannot send connections.list: An object could not be cloned.',
      },
    })
  })

  it('passes events of the contract to listeners until unsubscribed', () => {
    const received: unknown[] = []
    const off = bridge.on('connections.changed', (payload) => received.push(payload))
    renderer.ipcRenderer.emit(`${ipcPrefix}connections.changed`, {}, { connectionIds: ['a'] })
    off()
    renderer.ipcRenderer.emit(`${ipcPrefix}connections.changed`, {}, { connectionIds: ['b'] })
    expect(received).toEqual([{ connectionIds: ['a'] }])
  })

  it('refuses to listen to an unknown event, naming it', () => {
    const on = bridge.on as (event: string, listener: () => void) => () => void
    expect(() => on('window.opened', () => {})).toThrow('Unknown event: window.opened')
  })

  it('gives the path of a dropped file, or null where there is none', () => {
    renderer.webUtils.getPathForFile.mockReturnValueOnce('/home/ana/plate-7.csv')
    expect(bridge.pathForFile(new File(['x'], 'plate-7.csv'))).toBe('/home/ana/plate-7.csv')
    expect(bridge.pathForFile(new File(['x'], 'pasted.csv'))).toBeNull()
  })
})
