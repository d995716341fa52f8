/**
 * A small stand-in for the main-process `electron` module, for `vi.mock('electron', ...)`: it
 * records what the code under test asks of Electron and lets a test play Electron's part (emit
 * events, invoke IPC handlers, fetch through a protocol handler, answer dialogs).
 *
 *   vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)
 *
 * Call `resetFakeElectron()` before each test.
 */
import { EventEmitter } from 'node:events'
import { vi } from 'vitest'

interface FakeRectangle {
  x: number
  y: number
  width: number
  height: number
}

let nextProcessId = 100
let nextFrameToken = 1

/** A frame as Electron's WebFrameMain describes it; a new document gets a new token. */
export class FakeFrame {
  readonly processId: number
  readonly frameToken: string
  readonly url: string
  readonly parent: FakeFrame | null

  constructor(
    url: string,
    options: { parent?: FakeFrame; processId?: number; frameToken?: string } = {},
  ) {
    this.url = url
    this.parent = options.parent ?? null
    this.processId = options.processId ?? nextProcessId++
    this.frameToken = options.frameToken ?? `frame-${nextFrameToken++}`
  }
}

type WindowOpenHandler = (details: { url: string }) => { action: 'allow' | 'deny' }

export class FakeWebContents extends EventEmitter {
  mainFrame = new FakeFrame('about:blank')
  destroyed = false
  windowOpenHandler: WindowOpenHandler | undefined
  readonly sent: Array<{ channel: string; payload: unknown }> = []
  loadFailure: Error | undefined

  async loadURL(url: string): Promise<void> {
    if (this.loadFailure) throw this.loadFailure
    this.mainFrame = new FakeFrame(url)
  }

  getURL(): string {
    return this.mainFrame.url
  }

  setWindowOpenHandler(handler: WindowOpenHandler): void {
    this.windowOpenHandler = handler
  }

  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload })
  }

  isDestroyed(): boolean {
    return this.destroyed
  }

  /** Plays a renderer-initiated navigation; true when the app let it happen. */
  navigate(event: 'will-navigate' | 'will-redirect', url: string): boolean {
    const details = { url, defaultPrevented: false, preventDefault: () => {} }
    details.preventDefault = () => {
      details.defaultPrevented = true
    }
    this.emit(event, details, url)
    return !details.defaultPrevented
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static readonly created: FakeBrowserWindow[] = []

  readonly options: Record<string, unknown> & { webPreferences?: Record<string, unknown> }
  readonly webContents = new FakeWebContents()
  bounds: FakeRectangle
  maximized = false
  minimized = false
  visible = false
  focused = false
  destroyed = false

  static fromWebContents(contents: unknown): FakeBrowserWindow | null {
    return FakeBrowserWindow.created.find((window) => window.webContents === contents) ?? null
  }

  constructor(options: FakeBrowserWindow['options'] = {}) {
    super()
    this.options = options
    this.bounds = {
      x: Number(options.x ?? 0),
      y: Number(options.y ?? 0),
      width: Number(options.width ?? 800),
      height: Number(options.height ?? 600),
    }
    FakeBrowserWindow.created.push(this)
    app.emit('web-contents-created', {}, this.webContents)
  }

  loadURL(url: string): Promise<void> {
    return this.webContents.loadURL(url)
  }

  getNormalBounds(): FakeRectangle {
    return { ...this.bounds }
  }

  /** Plays the person dragging or resizing the window. */
  moveTo(bounds: FakeRectangle): void {
    this.bounds = { ...bounds }
    this.emit('move')
    this.emit('resize')
  }

  isMaximized(): boolean {
    return this.maximized
  }

  maximize(): void {
    this.maximized = true
    this.visible = true
    this.emit('maximize')
  }

  isMinimized(): boolean {
    return this.minimized
  }

  minimize(): void {
    this.minimized = true
  }

  restore(): void {
    this.minimized = false
  }

  isVisible(): boolean {
    return this.visible
  }

  show(): void {
    this.visible = true
  }

  focus(): void {
    this.focused = true
  }

  isDestroyed(): boolean {
    return this.destroyed
  }

  close(): void {
    this.emit('close', { preventDefault: () => {} })
    this.destroyed = true
    this.webContents.destroyed = true
    this.emit('closed')
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false
  /** Whether `requestSingleInstanceLock` succeeds, as when no other instance runs. */
  lockAvailable = true
  readonly requestSingleInstanceLock = vi.fn(() => this.lockAvailable)
  readonly enableSandbox = vi.fn()
  readonly setAboutPanelOptions = vi.fn()
  readonly quit = vi.fn()
  readonly exit = vi.fn()
  readonly getVersion = vi.fn(() => '0.1.0-test')
  /** The folders `getPath` answers (a test points `documents` at a temporary folder). */
  readonly paths = new Map<string, string>()
  readonly getPath = vi.fn((name: string) => {
    const found = this.paths.get(name)
    if (found === undefined) throw new Error(`Failed to get '${name}' path`)
    return found
  })
  #becomeReady = () => {}
  #ready = this.#readyPromise()

  whenReady(): Promise<void> {
    return this.#ready
  }

  /** Plays Electron finishing its start-up. */
  becomeReady(): void {
    this.#becomeReady()
  }

  #readyPromise(): Promise<void> {
    return new Promise((resolve) => {
      this.#becomeReady = resolve
    })
  }

  /** Plays a quit request; true when the app let the quit go ahead at once. */
  requestQuit(): boolean {
    const event = { defaultPrevented: false, preventDefault: () => {} }
    event.preventDefault = () => {
      event.defaultPrevented = true
    }
    this.emit('will-quit', event)
    return !event.defaultPrevented
  }

  reset(): void {
    this.removeAllListeners()
    this.isPackaged = false
    this.lockAvailable = true
    this.paths.clear()
    this.#ready = this.#readyPromise()
  }
}

type IpcListener = (event: unknown, ...args: unknown[]) => unknown

class FakeIpcMain {
  readonly handlers = new Map<string, IpcListener>()

  handle(channel: string, listener: IpcListener): void {
    if (this.handlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`)
    }
    this.handlers.set(channel, listener)
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel)
  }

  /** Plays `ipcRenderer.invoke` arriving from `sender`'s `senderFrame`. */
  async invoke(
    channel: string,
    from: { sender: FakeWebContents; senderFrame: FakeFrame | null },
    args?: unknown,
  ): Promise<unknown> {
    const handler = this.handlers.get(channel)
    if (!handler) throw new Error(`No handler registered for '${channel}'`)
    return handler(from, args)
  }
}

type ProtocolHandler = (request: Request) => Response | Promise<Response>

class FakeProtocol {
  readonly privilegedSchemes: Array<{ scheme: string; privileges?: Record<string, boolean> }> = []
  readonly handlers = new Map<string, ProtocolHandler>()

  registerSchemesAsPrivileged(schemes: FakeProtocol['privilegedSchemes']): void {
    this.privilegedSchemes.push(...schemes)
  }

  handle(scheme: string, handler: ProtocolHandler): void {
    this.handlers.set(scheme, handler)
  }

  /** Plays the page requesting `url` through the registered handler of its scheme. */
  async fetch(url: string, init?: RequestInit): Promise<Response> {
    const scheme = new URL(url).protocol.slice(0, -1)
    const handler = this.handlers.get(scheme)
    if (!handler) throw new Error(`No protocol handler for '${scheme}'`)
    return handler(new Request(url, init))
  }
}

type PermissionRequestHandler = (
  contents: FakeWebContents,
  permission: string,
  callback: (granted: boolean) => void,
) => void
type PermissionCheckHandler = (contents: FakeWebContents | null, permission: string) => boolean

export class FakeSession {
  permissionRequestHandler: PermissionRequestHandler | null = null
  permissionCheckHandler: PermissionCheckHandler | null = null

  setPermissionRequestHandler(handler: PermissionRequestHandler | null): void {
    this.permissionRequestHandler = handler
  }

  setPermissionCheckHandler(handler: PermissionCheckHandler | null): void {
    this.permissionCheckHandler = handler
  }
}

interface FakeMessageBoxOptions {
  cancelId?: number
}

interface FakeOpenDialogOptions {
  defaultPath?: string
  properties?: string[]
}

interface FakeSaveDialogOptions {
  defaultPath?: string
  filters?: Array<{ name: string; extensions: string[] }>
}

class FakeDialog {
  /** The buttons the person will press, in order; after that, the dialog's cancel button. */
  readonly responses: number[] = []
  /** Takes `(options)` or `(window, options)`, as Electron's does. */
  readonly showMessageBox = vi.fn(
    async (
      ...args: [FakeMessageBoxOptions] | [FakeBrowserWindow | null, FakeMessageBoxOptions]
    ) => {
      const options = args.length === 2 ? args[1] : args[0]
      return { response: this.responses.shift() ?? options.cancelId ?? 0, checkboxChecked: false }
    },
  )
  /**
   * The files the person will pick in save dialogs, in order (null: they cancel); after that,
   * every save dialog is cancelled.
   */
  readonly savePaths: Array<string | null> = []
  /** Takes `(options)` or `(window, options)`, as Electron's does. */
  readonly showSaveDialog = vi.fn(
    async (
      ..._args: [FakeSaveDialogOptions] | [FakeBrowserWindow | null, FakeSaveDialogOptions]
    ) => {
      const filePath = this.savePaths.shift() ?? null
      return filePath === null ? { canceled: true, filePath: '' } : { canceled: false, filePath }
    },
  )
  /**
   * The paths the person will pick in open dialogs, in order (null: they cancel); after that,
   * every open dialog is cancelled.
   */
  readonly openPaths: Array<string | null> = []
  /** Takes `(options)` or `(window, options)`, as Electron's does. */
  readonly showOpenDialog = vi.fn(
    async (
      ..._args: [FakeOpenDialogOptions] | [FakeBrowserWindow | null, FakeOpenDialogOptions]
    ) => {
      const chosen = this.openPaths.shift() ?? null
      return chosen === null
        ? { canceled: true, filePaths: [] }
        : { canceled: false, filePaths: [chosen] }
    },
  )
}

class FakeScreen {
  displays: Array<{ workArea: FakeRectangle }> = [
    { workArea: { x: 0, y: 0, width: 1920, height: 1040 } },
  ]

  getAllDisplays() {
    return this.displays
  }

  getPrimaryDisplay() {
    const primary = this.displays[0]
    if (!primary) throw new Error('The fake screen has no displays.')
    return primary
  }
}

const app = new FakeApp()
const ipcMain = new FakeIpcMain()
const protocol = new FakeProtocol()
const session = { defaultSession: new FakeSession() }
const shell = {
  openExternal: vi.fn(async (_url: string) => {}),
  openPath: vi.fn(async (_path: string) => ''),
  showItemInFolder: vi.fn((_path: string) => {}),
}
const Menu = {
  applicationMenu: null as { template: unknown[] } | null,
  buildFromTemplate: (template: unknown[]) => ({ template }),
  setApplicationMenu(menu: { template: unknown[] } | null) {
    Menu.applicationMenu = menu
  },
}
const dialog = new FakeDialog()
const clipboard = { writeText: vi.fn((_text: string) => {}) }
const screen = new FakeScreen()

/** What `vi.mock('electron', ...)` returns, and what tests drive and inspect. */
export const fakeElectron = {
  app,
  BrowserWindow: FakeBrowserWindow,
  ipcMain,
  protocol,
  session,
  shell,
  Menu,
  dialog,
  clipboard,
  screen,
}

export function resetFakeElectron(): void {
  app.reset()
  vi.clearAllMocks()
  FakeBrowserWindow.created.length = 0
  ipcMain.handlers.clear()
  protocol.privilegedSchemes.length = 0
  protocol.handlers.clear()
  session.defaultSession = new FakeSession()
  Menu.applicationMenu = null
  dialog.responses.length = 0
  dialog.savePaths.length = 0
  dialog.openPaths.length = 0
  screen.displays = [{ workArea: { x: 0, y: 0, width: 1920, height: 1040 } }]
}
