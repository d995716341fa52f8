/**
 * The preload: gives the page one object, `window.vaultDesk`, and nothing of Electron or Node.
 * Channel names are checked here and again in main.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { eventChannels, ipcPrefix, isRequestChannel } from '../ipc/channels.ts'
import type { VaultDeskBridge } from '../ipc/contract.ts'

const bridge: VaultDeskBridge = {
  invoke(channel, args) {
    if (!isRequestChannel(channel)) {
      return Promise.resolve({
        ok: false,
        error: { code: 'unknown_channel', message: `Unknown request channel: ${String(channel)}` },
      })
    }
    return ipcRenderer.invoke(ipcPrefix + channel, args)
  },
  on(event, listener) {
    if (!(eventChannels as readonly string[]).includes(event)) {
      throw new Error(`Unknown event: ${String(event)}`)
    }
    const wrapped = (_event: IpcRendererEvent, payload: Parameters<typeof listener>[0]) =>
      listener(payload)
    ipcRenderer.on(ipcPrefix + event, wrapped)
    return () => ipcRenderer.removeListener(ipcPrefix + event, wrapped)
  },
  pathForFile(file) {
    return webUtils.getPathForFile(file) || null
  },
}

contextBridge.exposeInMainWorld('vaultDesk', bridge)
