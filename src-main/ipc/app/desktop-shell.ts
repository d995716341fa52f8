/**
 * What a host with a person in front of it adds to the contract: choosing where a file goes,
 * showing it once written, and choosing a folder. Electron has the native save and folder dialogs
 * and the system's file manager; the browser preview has none of them, so it writes the file in
 * its data folder and the page downloads it, and a folder's path is typed; the CLI has no person
 * to ask, so the services' own handlers refuse these channels. A host puts its shell in front of
 * the shared dispatcher (`withDesktopShell`), which checks the channels' arguments against the
 * contract as it does every other.
 */
import type { ExportFormat } from '../../export/formats.ts'
import { formatInfo } from '../../export/formats.ts'
import { safeErrorValue, toErrorValue, type ErrorValue } from '../../shared/app-error.ts'
import { fail, ok } from '../../shared/result.ts'
import type { Dispatch } from '../dispatcher.ts'
import { appSchemas, type SaveTarget } from './contract.ts'

export interface SavePathRequest {
  format: ExportFormat
  suggestedName: string
}

export interface FolderRequest {
  title: string
  startAt?: string | undefined
}

export interface DesktopShell {
  /** Where to save a file of `format`, or null when the person cancelled. */
  chooseSavePath(request: SavePathRequest): Promise<SaveTarget | null>
  /**
   * A folder the person chose in the system's folder dialog, or null when they cancelled; a shell
   * without one leaves `app.chooseFolder` to the services, which refuse it (the path is typed).
   */
  chooseFolder?(request: FolderRequest): Promise<{ path: string } | null>
  /** Shows a file this shell chose in the system's file manager. */
  showInFolder(path: string): Promise<void>
  /**
   * Opens a fetched attachment with the system's default application; a shell without it leaves
   * `attachments.open` to the services, which refuse it.
   */
  openFile?(path: string): Promise<void>
}

/** The host answers these itself (its shell); the services' handlers refuse them. */
const shellChannels = new Set<unknown>(['app.chooseSavePath', 'app.showInFolder'])

/** `dispatch` with `shell` answering the channels that need a person's desktop. */
export function withDesktopShell(dispatch: Dispatch, shell: DesktopShell): Dispatch {
  return async (channel, args) => {
    if (channel === 'attachments.open' && shell.openFile) {
      // The services say where the file is (and refuse a program); the page never names a path.
      const found = await dispatch('attachments.localPath', args)
      if (!found.ok) return found
      try {
        await shell.openFile((found.value as { path: string }).path)
        return ok({ opened: true as const })
      } catch (error) {
        return fail(shellError(error))
      }
    }
    if (channel === 'app.chooseFolder' && shell.chooseFolder) {
      try {
        return ok(await shell.chooseFolder(parse('app.chooseFolder', args)))
      } catch (error) {
        return fail(shellError(error))
      }
    }
    if (!shellChannels.has(channel)) return dispatch(channel, args)
    try {
      if (channel === 'app.chooseSavePath') {
        return ok(await shell.chooseSavePath(parse('app.chooseSavePath', args)))
      }
      await shell.showInFolder(parse('app.showInFolder', args).path)
      return ok({ shown: true as const })
    } catch (error) {
      return fail(shellError(error))
    }
  }
}

class InvalidShellArgument extends Error {}

function parse<C extends 'app.chooseSavePath' | 'app.chooseFolder' | 'app.showInFolder'>(
  channel: C,
  args: unknown,
) {
  const parsed = appSchemas[channel].safeParse(args ?? {})
  if (parsed.success) return parsed.data as ReturnType<(typeof appSchemas)[C]['parse']>
  const parts = parsed.error.issues.map(
    (issue) => `${issue.path.length ? issue.path.join('.') : 'argument'}: ${issue.message}`,
  )
  throw new InvalidShellArgument(`Invalid argument for ${channel}: ${parts.join('; ')}`)
}

/** A bad argument is answered as the dispatcher answers any channel's. */
function shellError(error: unknown): ErrorValue {
  if (error instanceof InvalidShellArgument) {
    return safeErrorValue({ code: 'invalid_argument', message: error.message })
  }
  return toErrorValue(error)
}

/** Characters no file name may hold on Windows, macOS or Linux, and control characters. */
// eslint-disable-next-line no-control-regex
const forbiddenInNames = /[<>:"/\\|?*\u0000-\u001f\u007f]+/g
const reservedOnWindows = /^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i
const longestStem = 120

/**
 * A file name fit for every system from a view's name (`Molecules: “aspirin”`), ending as the
 * format does: a name already ending so keeps it.
 */
export function saveFileName(suggestedName: string, format: ExportFormat): string {
  const { extension } = formatInfo[format]
  let stem = suggestedName.normalize('NFC').replace(forbiddenInNames, ' ')
  if (stem.toLowerCase().endsWith(extension)) stem = stem.slice(0, -extension.length)
  stem = stem
    .replace(/\s+/g, ' ')
    .trim()
    // Windows drops trailing dots and spaces, and a leading dot hides a file elsewhere.
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, longestStem)
    .trim()
  if (stem === '') stem = 'export'
  if (reservedOnWindows.test(stem)) stem = `${stem} export`
  return `${stem}${extension}`
}
