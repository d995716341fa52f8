/**
 * The desktop a window's exports need in Electron: the native save dialog, with the format's
 * filter and ending, and the system's file manager to show the file once written; and the native
 * folder dialog, for a watched instrument folder. Only files the person chose in the save dialog
 * during this run are ever shown: the page cannot make the app reveal any other path.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import {
  app,
  dialog,
  shell,
  type BrowserWindow,
  type OpenDialogOptions,
  type SaveDialogOptions,
} from 'electron'
import { formatInfo } from '../export/formats.ts'
import type { SaveTarget } from '../ipc/app/contract.ts'
import {
  saveFileName,
  type DesktopShell,
  type FolderRequest,
  type SavePathRequest,
} from '../ipc/app/desktop-shell.ts'
import { AppError } from '../shared/app-error.ts'

export class NativeShell implements DesktopShell {
  readonly #window: () => BrowserWindow | undefined
  readonly #chosen = new Set<string>()
  /** The folder of the last file saved: the next dialog opens there. */
  #lastFolder: string | null = null

  constructor(window: () => BrowserWindow | undefined) {
    this.#window = window
  }

  async chooseSavePath({ format, suggestedName }: SavePathRequest): Promise<SaveTarget | null> {
    const { label, extension } = formatInfo[format]
    const name = saveFileName(suggestedName, format)
    const options: SaveDialogOptions = {
      title: `Save as ${label}`,
      defaultPath: path.join(this.#lastFolder ?? startFolder(), name),
      buttonLabel: 'Save',
      filters: [{ name: label, extensions: [extension.slice(1)] }],
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    }
    const parent = this.#window()
    const answer =
      parent && !parent.isDestroyed()
        ? await dialog.showSaveDialog(parent, options)
        : await dialog.showSaveDialog(options)
    if (answer.canceled || !answer.filePath) return null
    // Linux's dialogs do not add the filter's ending to a name typed without it.
    const chosen = answer.filePath.toLowerCase().endsWith(extension)
      ? answer.filePath
      : `${answer.filePath}${extension}`
    this.#chosen.add(chosen)
    this.#lastFolder = path.dirname(chosen)
    return { path: chosen, name: path.basename(chosen) }
  }

  async chooseFolder({ title, startAt }: FolderRequest): Promise<{ path: string } | null> {
    const options: OpenDialogOptions = {
      title,
      defaultPath: startAt ?? startFolder(),
      buttonLabel: 'Choose',
      properties: ['openDirectory', 'createDirectory'],
    }
    const parent = this.#window()
    const answer =
      parent && !parent.isDestroyed()
        ? await dialog.showOpenDialog(parent, options)
        : await dialog.showOpenDialog(options)
    const [chosen] = answer.filePaths
    return answer.canceled || !chosen ? null : { path: chosen }
  }

  async showInFolder(file: string): Promise<void> {
    if (!this.#chosen.has(file)) {
      throw new AppError(
        'forbidden',
        `Vault Desk shows only files saved through its own save dialog, and ${file} was not.`,
      )
    }
    const found = await fs.stat(file).catch(() => null)
    if (!found?.isFile()) {
      throw new AppError('not_found', `${file} is no longer there: it was moved or deleted.`)
    }
    shell.showItemInFolder(file)
  }

  /** Only paths the services gave for a fetched attachment reach here (desktop-shell.ts). */
  async openFile(file: string): Promise<void> {
    const failure = await shell.openPath(file)
    if (failure !== '') {
      throw new AppError(
        'not_found',
        `The system could not open ${path.basename(file)}: ${failure}`,
      )
    }
  }
}

/** The person's documents folder, or home where the system names none. */
function startFolder(): string {
  try {
    return app.getPath('documents')
  } catch {
    return app.getPath('home')
  }
}
