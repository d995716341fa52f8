/**
 * The native menu bar, built from Electron's roles so that every platform gets its own labels,
 * shortcuts and behaviour (macOS app menu and Services, Windows' Exit, and so on).
 */
import { Menu, type MenuItemConstructorOptions } from 'electron'

export interface MenuOptions {
  platform: NodeJS.Platform
  /** Reload and the developer tools are for development builds only. */
  isPackaged: boolean
  appName: string
  openLogsFolder(): void
}

export function installApplicationMenu(options: MenuOptions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(options)))
}

export function menuTemplate(options: MenuOptions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin'
  const macOnly = <T>(items: T[]): T[] => (mac ? items : [])
  const separator: MenuItemConstructorOptions = { type: 'separator' }

  const appMenu: MenuItemConstructorOptions = {
    label: options.appName,
    submenu: [
      { role: 'about' },
      separator,
      { role: 'services' },
      separator,
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      separator,
      { role: 'quit' },
    ],
  }

  const fileMenu: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [mac ? { role: 'close' } : { role: 'quit' }],
  }

  const editMenu: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      separator,
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...macOnly<MenuItemConstructorOptions>([{ role: 'pasteAndMatchStyle' }, { role: 'delete' }]),
      { role: 'selectAll' },
    ],
  }

  const developerItems: MenuItemConstructorOptions[] = options.isPackaged
    ? []
    : [{ role: 'reload' }, { role: 'toggleDevTools' }, separator]
  const viewMenu: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...developerItems,
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      separator,
      { role: 'togglefullscreen' },
    ],
  }

  const windowMenu: MenuItemConstructorOptions = {
    role: 'window',
    submenu: mac
      ? [{ role: 'minimize' }, { role: 'zoom' }, separator, { role: 'front' }]
      : [{ role: 'minimize' }, { role: 'close' }],
  }

  const helpMenu: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { label: 'Open Logs Folder', click: () => options.openLogsFolder() },
      // macOS has About in the app menu.
      ...(mac ? [] : [separator, { role: 'about' as const }]),
    ],
  }

  return [...macOnly([appMenu]), fileMenu, editMenu, viewMenu, windowMenu, helpMenu]
}
