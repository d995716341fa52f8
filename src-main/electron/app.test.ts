import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { MenuItemConstructorOptions } from 'electron'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ipcPrefix, requestChannels } from '../ipc/channels.ts'
import { contentSecurityPolicy } from '../shared/content-security-policy.ts'
import { startElectronApp } from './app.ts'
import { FakeBrowserWindow, fakeElectron, resetFakeElectron } from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

const { app, ipcMain, protocol, session, shell, dialog, clipboard, Menu } = fakeElectron

let dir: string
let dataDir: string
let bundleDir: string
/** Whether a started app still holds its services open (they are closed by quitting). */
let running = false

beforeEach(() => {
  resetFakeElectron()
  app.isPackaged = true
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-electron-app-'))
  dataDir = path.join(dir, 'data')
  bundleDir = path.join(dir, 'app', 'out', 'main')
  const rendererDir = path.join(dir, 'app', 'out', 'renderer')
  fs.mkdirSync(rendererDir, { recursive: true })
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Vault Desk</title>')
  vi.stubEnv('VAULT_DESK_DATA_DIR', dataDir)
  vi.stubEnv('ELECTRON_RENDERER_URL', '')
})

afterEach(async () => {
  if (running) await quit()
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
  fs.rmSync(dir, { recursive: true, force: true })
})

async function start(): Promise<void> {
  const starting = startElectronApp({ bundleDir })
  app.becomeReady()
  await starting
  running = app.listenerCount('will-quit') > 0
}

/** Plays a quit: the first will-quit waits for the services to close, then quits again. */
async function quit(): Promise<void> {
  const quitsBefore = app.quit.mock.calls.length
  expect(app.requestQuit()).toBe(false)
  await vi.waitFor(() => expect(app.quit).toHaveBeenCalledTimes(quitsBefore + 1))
  expect(app.requestQuit()).toBe(true)
  running = false
}

function theWindow(): FakeBrowserWindow {
  expect(FakeBrowserWindow.created).toHaveLength(1)
  return FakeBrowserWindow.created[0] as FakeBrowserWindow
}

function fromTheWindow() {
  const { webContents } = theWindow()
  return { sender: webContents, senderFrame: webContents.mainFrame }
}

describe('startElectronApp', () => {
  it('quits at once when another instance holds the lock', async () => {
    app.lockAvailable = false
    await startElectronApp({ bundleDir })
    expect(app.quit).toHaveBeenCalledOnce()
    expect(protocol.privilegedSchemes).toEqual([])
    expect(FakeBrowserWindow.created).toEqual([])
  })

  it('enables the sandbox and registers the app scheme before Electron is ready', async () => {
    const starting = startElectronApp({ bundleDir })
    expect(app.requestSingleInstanceLock).toHaveBeenCalledOnce()
    expect(app.enableSandbox).toHaveBeenCalledOnce()
    expect(protocol.privilegedSchemes.map((scheme) => scheme.scheme)).toEqual(['vault-desk'])
    expect(protocol.handlers.size).toBe(0)
    expect(FakeBrowserWindow.created).toEqual([])
    app.becomeReady()
    await starting
    expect(protocol.handlers.has('vault-desk')).toBe(true)
  })

  it('opens one sandboxed window on the app scheme with the bundled preload', async () => {
    await start()
    const window = theWindow()
    expect(window.options.webPreferences).toMatchObject({
      preload: path.join(dir, 'app', 'out', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    })
    expect(window.webContents.getURL()).toBe('vault-desk://app/')
    expect(window.options.icon).toBeUndefined()
  })

  it('serves the built renderer with the CSP header', async () => {
    await start()
    const response = await protocol.fetch('vault-desk://app/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-security-policy')).toBe(contentSecurityPolicy())
    expect(await response.text()).toContain('<title>Vault Desk</title>')
  })

  it('denies every permission and keeps the window on the app', async () => {
    await start()
    expect(session.defaultSession.permissionCheckHandler?.(null, 'media')).toBe(false)
    const { webContents } = theWindow()
    expect(webContents.navigate('will-navigate', 'https://example.com/')).toBe(false)
    expect(webContents.windowOpenHandler?.({ url: 'file:///etc/passwd' })).toEqual({
      action: 'deny',
    })
  })

  it('answers the contract over IPC from the window with the real services', async () => {
    await start()
    expect([...ipcMain.handlers.keys()].sort()).toEqual(
      requestChannels.map((channel) => ipcPrefix + channel).sort(),
    )
    expect(await ipcMain.invoke(`${ipcPrefix}app.info`, fromTheWindow(), {})).toMatchObject({
      ok: true,
      value: { host: 'electron', dataDir },
    })
    expect(await ipcMain.invoke(`${ipcPrefix}connections.list`, fromTheWindow(), {})).toEqual({
      ok: true,
      value: [],
    })
  })

  it('saves where the person chose in the native save dialog, and shows only such files', async () => {
    await start()
    const documents = path.join(dir, 'Documents')
    fs.mkdirSync(documents)
    app.paths.set('documents', documents)
    const invoke = (channel: string, args: unknown) =>
      ipcMain.invoke(`${ipcPrefix}${channel}`, fromTheWindow(), args)

    // A name typed without the ending (Linux's dialogs add none) gets the format's.
    dialog.savePaths.push(path.join(documents, 'pyridines'), null)
    const chosen = path.join(documents, 'pyridines.sdf')
    expect(
      await invoke('app.chooseSavePath', { format: 'sdf', suggestedName: 'Molecules: c1ccncc1' }),
    ).toEqual({ ok: true, value: { path: chosen, name: 'pyridines.sdf' } })
    expect(dialog.showSaveDialog).toHaveBeenCalledWith(theWindow(), {
      title: 'Save as SD file',
      defaultPath: path.join(documents, 'Molecules c1ccncc1.sdf'),
      buttonLabel: 'Save',
      filters: [{ name: 'SD file', extensions: ['sdf'] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    })
    // The next dialog opens where the last file went; cancelling it answers null.
    expect(await invoke('app.chooseSavePath', { format: 'csv', suggestedName: 'Plates' })).toEqual({
      ok: true,
      value: null,
    })
    expect(dialog.showSaveDialog.mock.calls[1]?.[1]).toMatchObject({
      defaultPath: path.join(documents, 'Plates.csv'),
      filters: [{ name: 'CSV', extensions: ['csv'] }],
    })

    expect(await invoke('app.showInFolder', { path: chosen })).toMatchObject({
      ok: false,
      error: {
        code: 'not_found',
        message: `${chosen} is no longer there: it was moved or deleted.`,
      },
    })
    fs.writeFileSync(chosen, '\n$$$$\n')
    expect(await invoke('app.showInFolder', { path: chosen })).toEqual({
      ok: true,
      value: { shown: true },
    })
    expect(shell.showItemInFolder).toHaveBeenCalledExactlyOnceWith(chosen)
    const other = path.join(dataDir, 'app.db')
    expect(await invoke('app.showInFolder', { path: other })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    })
    expect(shell.showItemInFolder).toHaveBeenCalledTimes(1)
    expect(await invoke('app.chooseSavePath', { format: 'pdf', suggestedName: 'x' })).toMatchObject(
      { ok: false, error: { code: 'invalid_argument' } },
    )
  })

  it('chooses a folder in the native folder dialog, parented to the window', async () => {
    await start()
    const documents = path.join(dir, 'Documents')
    const exports = path.join(documents, 'plate-reader')
    fs.mkdirSync(exports, { recursive: true })
    app.paths.set('documents', documents)
    const invoke = (channel: string, args: unknown) =>
      ipcMain.invoke(`${ipcPrefix}${channel}`, fromTheWindow(), args)

    dialog.openPaths.push(exports, null)
    expect(await invoke('app.chooseFolder', { title: 'Folder to watch' })).toEqual({
      ok: true,
      value: { path: exports },
    })
    expect(dialog.showOpenDialog).toHaveBeenCalledWith(theWindow(), {
      title: 'Folder to watch',
      defaultPath: documents,
      buttonLabel: 'Choose',
      properties: ['openDirectory', 'createDirectory'],
    })
    // Cancelled: null, and the dialog opened where the caller asked.
    expect(
      await invoke('app.chooseFolder', { title: 'Folder to watch', startAt: exports }),
    ).toEqual({ ok: true, value: null })
    expect(dialog.showOpenDialog.mock.calls[1]?.[1]).toMatchObject({ defaultPath: exports })
    expect(await invoke('app.chooseFolder', { title: ' ' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: expect.stringContaining('title') },
    })
    expect(dialog.showOpenDialog).toHaveBeenCalledTimes(2)
  })

  it('installs the menu without developer items in a packaged app', async () => {
    await start()
    const template = Menu.applicationMenu?.template as MenuItemConstructorOptions[]
    const view = template.find((menu) => menu.label === 'View')
    const roles = (view?.submenu as MenuItemConstructorOptions[]).map((item) => item.role)
    expect(roles).not.toContain('toggleDevTools')
    expect(roles).toContain('zoomIn')
  })

  it('opens the logs folder from Help and names the version in the About panel', async () => {
    await start()
    const template = Menu.applicationMenu?.template as MenuItemConstructorOptions[]
    const help = template.find((menu) => menu.role === 'help')
    const openLogs = (help?.submenu as MenuItemConstructorOptions[])[0]
    openLogs?.click?.({} as never, undefined, {} as never)
    expect(shell.openPath).toHaveBeenCalledWith(path.join(dataDir, 'logs'))
    expect(app.setAboutPanelOptions).toHaveBeenCalledWith({
      applicationName: 'Vault Desk',
      applicationVersion: expect.stringMatching(/^\d+\.\d+\.\d+/),
    })
  })

  it('brings the existing window to the front when the app is launched again', async () => {
    await start()
    const window = theWindow()
    window.minimize()
    app.emit('second-instance', {}, ['vault-desk'], '/')
    expect(window.isMinimized()).toBe(false)
    expect(window.focused).toBe(true)
    expect(FakeBrowserWindow.created).toHaveLength(1)
  })

  it.skipIf(process.platform === 'darwin')('quits when its window is closed', async () => {
    await start()
    theWindow().close()
    app.emit('window-all-closed')
    expect(app.quit).toHaveBeenCalled()
    await quit()
  })

  it('removes the IPC handlers and closes the services on quit', async () => {
    await start()
    await quit()
    expect(ipcMain.handlers.size).toBe(0)
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'vault-desk.log'), 'utf8')
    expect(log).toContain('"msg":"services stopped"')
  })

  it('loads the dev server in development and mirrors the log to stdout', async () => {
    app.isPackaged = false
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173')
    const stdout = vi.spyOn(process.stdout, 'write').mockReturnValue(true)
    await start()
    expect(theWindow().webContents.getURL()).toBe('http://localhost:5173/')
    expect(theWindow().options.icon).toBe(path.join(dir, 'app', 'resources', 'icon.png'))
    expect(stdout).toHaveBeenCalledWith(expect.stringContaining('Electron host started'))
    expect(await ipcMain.invoke(`${ipcPrefix}app.status`, fromTheWindow(), {})).toMatchObject({
      ok: true,
    })
  })
})

describe('startElectronApp when it cannot start', () => {
  function breakTheDatabase(): void {
    fs.mkdirSync(path.join(dataDir, 'app.db'), { recursive: true })
  }

  it('shows the database failure dialog, copies the error on request, then exits', async () => {
    breakTheDatabase()
    dialog.responses.push(0, 0, 1)
    await start()
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(3)
    expect(dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({
        type: 'error',
        message: 'Vault Desk cannot open its database.',
        buttons: ['Copy error', 'Quit'],
      }),
    )
    expect(clipboard.writeText).toHaveBeenCalledTimes(2)
    expect(clipboard.writeText).toHaveBeenCalledWith(
      expect.stringContaining(`Cannot open the app database at ${path.join(dataDir, 'app.db')}`),
    )
    expect(app.exit).toHaveBeenCalledWith(1)
    expect(FakeBrowserWindow.created).toEqual([])
    expect(ipcMain.handlers.size).toBe(0)
  })

  it('exits even when the dialog itself fails', async () => {
    breakTheDatabase()
    dialog.showMessageBox.mockRejectedValueOnce(new Error('no display'))
    await expect(start()).rejects.toThrow('no display')
    expect(app.exit).toHaveBeenCalledWith(1)
  })

  it('refuses a dev server that is not on this machine, naming the variable', async () => {
    app.isPackaged = false
    vi.stubEnv('ELECTRON_RENDERER_URL', 'https://example.com/')
    vi.spyOn(process.stdout, 'write').mockReturnValue(true)
    await start()
    expect(dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({
        message: 'Vault Desk could not start.',
        detail: expect.stringContaining(
          'ELECTRON_RENDERER_URL must be an http:// URL on localhost',
        ),
      }),
    )
    expect(app.exit).toHaveBeenCalledWith(1)
    expect(FakeBrowserWindow.created).toEqual([])
  })
})
