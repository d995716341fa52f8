import { z } from 'zod'
import { exportFormats } from '../../export/formats.ts'
import type { AppInfo } from '../../shared/app-info.ts'
import type { AppNotice } from '../../shared/app-notices.ts'
import type { AppStatus } from '../../shared/app-status.ts'
import type { AppChannel } from './channels.ts'

const noArgs = z.object({}).strict()

export const appSchemas = {
  'app.info': noArgs,
  'app.status': noArgs,
  'app.notices': noArgs,
  'app.dismissNotice': z.object({ id: z.string().min(1).max(300) }).strict(),
  'app.chooseSavePath': z
    .object({
      format: z.enum(exportFormats),
      /** The name to offer, with or without the format's ending (the view's name, say). */
      suggestedName: z.string().trim().min(1).max(200),
    })
    .strict(),
  'app.chooseFolder': z
    .object({
      /** What the folder is for, as the dialog's title says it. */
      title: z.string().trim().min(1).max(200),
      /** The folder to open the dialog in (the one chosen before, say). */
      startAt: z.string().min(1).max(4096).optional(),
    })
    .strict(),
  'app.showInFolder': z.object({ path: z.string().min(1).max(4096) }).strict(),
} satisfies Record<AppChannel, z.ZodType>

/** Where an export is to be written, as the host chose it with the person. */
export interface SaveTarget {
  /** The full path to give `exports.start`, ending as the format does. */
  path: string
  /** The file's name, as the person will see it. */
  name: string
  /**
   * The browser preview only: the address on the preview's own origin from which the page
   * downloads the file once its export has completed. It answers once; the file is then removed.
   */
  download?: string
}

export interface AppResults {
  'app.info': AppInfo
  'app.status': AppStatus
  /** What the window shows until the person dismisses it, oldest first (`AppNotice`). */
  'app.notices': AppNotice[]
  /** A notice read; `not_found` for one no longer shown. */
  'app.dismissNotice': { dismissed: true }
  /**
   * Electron: the native save dialog, with the format's filter and ending; null when the person
   * cancelled it. The browser preview: a file of the data folder, downloaded once complete.
   * Refused (`invalid_argument`) by a host that has neither (the CLI).
   */
  'app.chooseSavePath': SaveTarget | null
  /**
   * Electron: the native folder dialog (a new folder may be made in it); the chosen folder's full
   * path, or null when the person cancelled it. Refused (`invalid_argument`) by the browser
   * preview and the CLI, where the path is typed.
   */
  'app.chooseFolder': { path: string } | null
  /**
   * Electron: shows a file chosen through `app.chooseSavePath` in the system's file manager;
   * any other path is refused (`forbidden`), and a file no longer there is `not_found`. Refused by
   * the browser preview, whose files are downloads.
   */
  'app.showInFolder': { shown: true }
}
