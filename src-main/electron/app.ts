/**
 * The Electron host: wires the shared services to one secure window, the IPC host and the menus,
 * and shuts them down in order on quit.
 */
import path from 'node:path'
import { app, session, shell, type BrowserWindow } from 'electron'
import { withDesktopShell } from '../ipc/app/desktop-shell.ts'
import { createDispatcher } from '../ipc/dispatcher.ts'
import { createHandlers } from '../ipc/handlers.ts'
import { createServices, type Services } from '../services/index.ts'
import { registerAppScheme, serveRenderer } from './app-protocol.ts'
import { startIpcHost } from './ipc-host.ts'
import { bringToFront, openMainWindow } from './main-window.ts'
import { installApplicationMenu } from './menu.ts'
import { NativeShell } from './native-shell.ts'
import { resolveRendererLocation } from './renderer-location.ts'
import { denyAllPermissions, guardWebContents } from './security.ts'
import { describeStartupFailure, showStartupFailure } from './startup-failure-dialog.ts'

export interface ElectronAppOptions {
  /** The folder of the built main bundle (`out/main`); preload and renderer are its siblings. */
  bundleDir: string
}

/** Resolves once the window is open, or once the person has dismissed a start-up failure. */
export async function startElectronApp({ bundleDir }: ElectronAppOptions): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return
  }
  app.enableSandbox()
  registerAppScheme()
  await app.whenReady()

  let services: Services | undefined
  try {
    services = createServices({
      host: 'electron',
      ...(app.isPackaged ? {} : { mirrorLog: (line: string) => process.stdout.write(line) }),
    })
    launch(services, bundleDir)
  } catch (error) {
    if (services) {
      const { log } = services
      log.error('the Electron host failed to start', { error: String(error) })
      await services.close().catch((closeError: unknown) => {
        log.error('cannot close the services', { error: String(closeError) })
      })
    }
    try {
      await showStartupFailure(describeStartupFailure(error, app.getVersion()))
    } finally {
      app.exit(1)
    }
  }
}

function launch(services: Services, bundleDir: string): void {
  const log = services.log.child({ component: 'electron' })
  const location = resolveRendererLocation({
    isPackaged: app.isPackaged,
    devServerUrl: process.env.ELECTRON_RENDERER_URL,
  })

  denyAllPermissions(session.defaultSession, log)
  serveRenderer(path.join(bundleDir, '../renderer'), log)
  app.on('web-contents-created', (_event, contents) =>
    guardWebContents(contents, { isAppUrl: location.isAppUrl, log }),
  )

  let mainWindow: BrowserWindow | undefined
  const openWindow = () => {
    mainWindow = openMainWindow({
      title: services.config.appName,
      preloadPath: path.join(bundleDir, '../preload/index.cjs'),
      ...(app.isPackaged ? {} : { iconPath: path.join(bundleDir, '../../resources/icon.png') }),
      startUrl: location.startUrl,
      stateFile: path.join(services.config.dataDir, 'window-state.json'),
      log,
    })
  }

  const ipcHost = startIpcHost({
    dispatch: withDesktopShell(
      createDispatcher(createHandlers(services), log),
      new NativeShell(() => mainWindow),
    ),
    events: services.events,
    window: () => mainWindow,
    isAppUrl: location.isAppUrl,
    log,
  })

  app.setAboutPanelOptions({
    applicationName: services.config.appName,
    applicationVersion: services.config.appVersion,
  })
  installApplicationMenu({
    platform: process.platform,
    isPackaged: app.isPackaged,
    appName: services.config.appName,
    openLogsFolder: () => {
      void shell.openPath(services.config.logDir).then((problem) => {
        if (problem) log.warn('cannot open the logs folder', { problem })
      })
    },
  })

  openWindow()

  app.on('second-instance', () => {
    if (mainWindow) bringToFront(mainWindow)
  })
  // macOS apps stay running without windows and open one again from the Dock.
  app.on('activate', () => {
    if (!mainWindow || mainWindow.isDestroyed()) openWindow()
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  let stopped = false
  app.on('will-quit', (event) => {
    if (stopped) return
    event.preventDefault()
    ipcHost.dispose()
    services
      .close()
      .catch((error: unknown) => log.error('cannot close the services', { error: String(error) }))
      .finally(() => {
        stopped = true
        app.quit()
      })
  })
  log.info('Electron host started', { startUrl: location.startUrl })
}
