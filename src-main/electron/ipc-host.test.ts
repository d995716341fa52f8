import type { BrowserWindow } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { ipcPrefix, requestChannels } from '../ipc/channels.ts'
import { createDispatcher, type RequestHandlers } from '../ipc/dispatcher.ts'
import { initialAppStatus } from '../shared/app-status.ts'
import { EventBus } from '../shared/events.ts'
import { silentLogger } from '../shared/logger.ts'
import { startIpcHost, type IpcHost } from './ipc-host.ts'
import { resolveRendererLocation } from './renderer-location.ts'
import {
  FakeBrowserWindow,
  FakeFrame,
  FakeWebContents,
  fakeElectron,
  resetFakeElectron,
} from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

const appUrl = 'vault-desk://app/'
const handlers: Pick<RequestHandlers, 'app.info' | 'app.status' | 'connections.list'> = {
  'app.info': () => ({
    name: 'Vault Desk',
    version: '0.1.0',
    host: 'electron',
    platform: 'linux',
    dataDir: '/data',
    logFile: '/data/logs/vault-desk.log',
  }),
  'app.status': () => initialAppStatus,
  'connections.list': () => [],
}

let window: FakeBrowserWindow | undefined
let events: EventBus
let host: IpcHost

beforeEach(async () => {
  resetFakeElectron()
  const opened = new FakeBrowserWindow()
  await opened.loadURL(appUrl)
  window = opened
  events = new EventBus()
  host = startIpcHost({
    dispatch: createDispatcher(handlers as RequestHandlers, silentLogger),
    events,
    window: () => window as unknown as BrowserWindow | undefined,
    isAppUrl: resolveRendererLocation({ isPackaged: true, devServerUrl: undefined }).isAppUrl,
    log: silentLogger,
  })
})

function fromMainFrame(target = window) {
  if (!target) throw new Error('the test needs a window')
  return { sender: target.webContents, senderFrame: target.webContents.mainFrame }
}

const ipc = fakeElectron.ipcMain
const forbidden = { ok: false, error: expect.objectContaining({ code: 'forbidden_sender' }) }

describe('startIpcHost', () => {
  it('registers exactly one handler per request channel, prefixed', () => {
    expect([...ipc.handlers.keys()].sort()).toEqual(
      requestChannels.map((channel) => ipcPrefix + channel).sort(),
    )
  })

  it('answers a request from the main frame of the app window through the dispatcher', async () => {
    expect(await ipc.invoke(`${ipcPrefix}app.status`, fromMainFrame(), {})).toEqual({
      ok: true,
      value: initialAppStatus,
    })
  })

  it('passes the argument on for validation', async () => {
    const result = await ipc.invoke(`${ipcPrefix}app.info`, fromMainFrame(), { extra: true })
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'invalid_argument' }),
    })
  })

  it('refuses a request from a subframe of the app window', async () => {
    const main = fromMainFrame()
    const subframe = new FakeFrame(appUrl, { parent: main.senderFrame })
    const result = await ipc.invoke(`${ipcPrefix}app.status`, {
      sender: main.sender,
      senderFrame: subframe,
    })
    expect(result).toEqual(forbidden)
  })

  it('accepts another frame object that stands for the same main frame', async () => {
    const main = fromMainFrame()
    const sameFrame = new FakeFrame(appUrl, {
      processId: main.senderFrame.processId,
      frameToken: main.senderFrame.frameToken,
    })
    const result = await ipc.invoke(`${ipcPrefix}app.status`, {
      sender: main.sender,
      senderFrame: sameFrame,
    })
    expect(result).toEqual({ ok: true, value: initialAppStatus })
  })

  it.each([
    ['another frame in the same process', { sameProcess: true, sameToken: false }],
    ['a frame with the same token in another process', { sameProcess: false, sameToken: true }],
  ])('refuses a request from %s', async (_case, { sameProcess, sameToken }) => {
    const main = fromMainFrame()
    const other = new FakeFrame(appUrl, {
      ...(sameProcess ? { processId: main.senderFrame.processId } : {}),
      ...(sameToken ? { frameToken: main.senderFrame.frameToken } : {}),
    })
    expect(
      await ipc.invoke(`${ipcPrefix}app.status`, { sender: main.sender, senderFrame: other }),
    ).toEqual(forbidden)
  })

  it('refuses a request from the main frame once it shows another origin', async () => {
    await window?.loadURL('https://attacker.example/')
    const result = await ipc.invoke(`${ipcPrefix}app.status`, fromMainFrame())
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'forbidden_sender',
        message: 'Refused app.status: the sender is not showing the app.',
      },
    })
  })

  it('refuses a request from other web contents, even showing the app', async () => {
    const other = new FakeWebContents()
    await other.loadURL(appUrl)
    const result = await ipc.invoke(`${ipcPrefix}app.status`, {
      sender: other,
      senderFrame: other.mainFrame,
    })
    expect(result).toEqual(forbidden)
  })

  it('refuses a request whose sender frame is gone', async () => {
    const result = await ipc.invoke(`${ipcPrefix}app.status`, {
      sender: fromMainFrame().sender,
      senderFrame: null,
    })
    expect(result).toEqual(forbidden)
  })

  it('refuses every request while no window is open', async () => {
    const request = fromMainFrame()
    window = undefined
    expect(await ipc.invoke(`${ipcPrefix}app.status`, request)).toEqual(forbidden)
  })

  it('has no handler for an unknown channel, so Electron refuses it', async () => {
    expect(ipc.handlers.has(`${ipcPrefix}fs.readFile`)).toBe(false)
    await expect(ipc.invoke(`${ipcPrefix}fs.readFile`, fromMainFrame())).rejects.toThrow(
      'No handler registered',
    )
  })

  it('forwards every service event to the window, prefixed', () => {
    const status = { ...initialAppStatus, online: true }
    events.emit('status.changed', status)
    events.emit('connections.changed', { connectionIds: ['c1'] })
    expect(window?.webContents.sent).toEqual([
      { channel: `${ipcPrefix}status.changed`, payload: status },
      { channel: `${ipcPrefix}connections.changed`, payload: { connectionIds: ['c1'] } },
    ])
  })

  it('forwards nothing once the window is closed', () => {
    const closed = window
    closed?.close()
    events.emit('connections.changed', { connectionIds: [] })
    expect(closed?.webContents.sent).toEqual([])
  })

  it('removes every handler and stops forwarding when disposed', () => {
    host.dispose()
    expect(ipc.handlers.size).toBe(0)
    events.emit('connections.changed', { connectionIds: [] })
    expect(window?.webContents.sent).toEqual([])
  })
})
