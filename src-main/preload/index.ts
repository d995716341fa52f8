/**
 * The preload: gives the page one object, `window.vaultDesk`, and nothing of Electron or Node.
 * Channel names are checked here and again in main.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { eventChannels, ipcPrefix, isRequestChannel } from '../ipc/channels.ts'
import type { VaultDeskBridge } from '../ipc/contract.ts'

const bridge: VaultDeskBridge = {
  async invoke(channel, args) {
    if (!isRequestChannel(channel)) {
      return {
        ok: false,
        error: { code: 'unknown_channel', message: `Unknown request channel: ${String(channel)}` },
      }
    }
    try {
      return await ipcRenderer.invoke(ipcPrefix + channel, args)
    } catch (error) {
      // Main answers errors as values; a rejection means the request never got there, most often
      // an argument that cannot be cloned (a Svelte state proxy: pass $state.snapshot(...)).
      const reason = error instanceof Error ? error.message : String(error)
      return {
        ok: false,
        error: { code: 'internal', message: `Cannot send ${channel}: ${reason}` },
      }
    }
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
