import type { MenuItemConstructorOptions } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { installApplicationMenu, menuTemplate, type MenuOptions } from './menu.ts'
import { fakeElectron, resetFakeElectron } from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

beforeEach(() => resetFakeElectron())

function options(overrides: Partial<MenuOptions> = {}): MenuOptions {
  return {
    platform: 'linux',
    isPackaged: true,
    appName: 'Vault Desk',
    openLogsFolder: () => {},
    ...overrides,
  }
}

/** Each top-level menu by its label or role, listing its items' roles (labels where no role). */
function outline(template: MenuItemConstructorOptions[]): Record<string, string[]> {
  return Object.fromEntries(
    template.map((menu) => [
      menu.label ?? menu.role,
      (menu.submenu as MenuItemConstructorOptions[]).map(
        (item) => item.role ?? (item.type === 'separator' ? '-' : item.label),
      ),
    ]),
  )
}

describe('menuTemplate', () => {
  it('gives macOS its app menu and mac-only roles', () => {
    expect(outline(menuTemplate(options({ platform: 'darwin' })))).toEqual({
      'Vault Desk': ['about', '-', 'services', '-', 'hide', 'hideOthers', 'unhide', '-', 'quit'],
      File: ['close'],
      Edit: [
        'undo',
        'redo',
        '-',
        'cut',
        'copy',
        'paste',
        'pasteAndMatchStyle',
        'delete',
        'selectAll',
      ],
      View: ['resetZoom', 'zoomIn', 'zoomOut', '-', 'togglefullscreen'],
      window: ['minimize', 'zoom', '-', 'front'],
      help: ['Open Logs Folder'],
    })
  })

  it.each(['linux', 'win32'] as const)('gives %s File > Quit and About under Help', (platform) => {
    expect(outline(menuTemplate(options({ platform })))).toEqual({
      File: ['quit'],
      Edit: ['undo', 'redo', '-', 'cut', 'copy', 'paste', 'selectAll'],
      View: ['resetZoom', 'zoomIn', 'zoomOut', '-', 'togglefullscreen'],
      window: ['minimize', 'close'],
      help: ['Open Logs Folder', '-', 'about'],
    })
  })

  it.each(['darwin', 'linux', 'win32'] as const)(
    'adds reload and the developer tools on %s only when not packaged',
    (platform) => {
      const view = (isPackaged: boolean) =>
        outline(menuTemplate(options({ platform, isPackaged }))).View
      expect(view(false)).toEqual([
        'reload',
        'toggleDevTools',
        '-',
        'resetZoom',
        'zoomIn',
        'zoomOut',
        '-',
        'togglefullscreen',
      ])
      expect(view(true)).not.toContain('reload')
      expect(view(true)).not.toContain('toggleDevTools')
    },
  )

  it('opens the logs folder from Help', () => {
    const openLogsFolder = vi.fn()
    const help = menuTemplate(options({ openLogsFolder })).find((menu) => menu.role === 'help')
    const item = (help?.submenu as MenuItemConstructorOptions[])[0]
    item?.click?.({} as never, undefined, {} as never)
    expect(openLogsFolder).toHaveBeenCalledOnce()
  })
})

describe('installApplicationMenu', () => {
  it('sets the built template as the application menu', () => {
    installApplicationMenu(options({ platform: 'darwin' }))
    const installed = fakeElectron.Menu.applicationMenu?.template as MenuItemConstructorOptions[]
    expect(outline(installed)).toEqual(outline(menuTemplate(options({ platform: 'darwin' }))))
  })
})
