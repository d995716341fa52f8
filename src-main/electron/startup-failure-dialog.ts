/**
 * When the app cannot start (most often: its database cannot be opened) there is no window to
 * explain it in, so a native dialog does. As in Signal's database-error dialog, the person can
 * copy the full error for support as often as needed before quitting; nothing is deleted.
 */
import { clipboard, dialog } from 'electron'
import { AppError } from '../shared/app-error.ts'

const copyButton = 0
const quitButton = 1

export interface StartupFailure {
  message: string
  detail: string
  /** Everything support needs, for the clipboard: versions, platform, the error and its causes. */
  report: string
}

export function describeStartupFailure(error: unknown, appVersion: string): StartupFailure {
  const storage = error instanceof AppError && error.code === 'storage'
  const summary = error instanceof Error ? error.message : String(error)
  return {
    message: storage ? 'Vault Desk cannot open its database.' : 'Vault Desk could not start.',
    detail:
      `${summary}\n\nNothing has been deleted. Copy the error and send it to your support ` +
      'contact, then quit.',
    report: [
      `Vault Desk ${appVersion}`,
      `Electron ${process.versions.electron ?? 'unknown'} on ${process.platform} ${process.arch}`,
      '',
      ...errorChain(error),
    ].join('\n'),
  }
}

/** Shows the failure until the person chooses Quit; every "Copy error" copies and asks again. */
export async function showStartupFailure(failure: StartupFailure): Promise<void> {
  for (;;) {
    const { response } = await dialog.showMessageBox({
      type: 'error',
      title: 'Vault Desk',
      message: failure.message,
      detail: failure.detail,
      buttons: ['Copy error', 'Quit'],
      defaultId: quitButton,
      cancelId: quitButton,
      noLink: true,
    })
    if (response !== copyButton) return
    clipboard.writeText(failure.report)
  }
}

function errorChain(error: unknown): string[] {
  const lines: string[] = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current !== undefined && !seen.has(current)) {
    seen.add(current)
    const text = current instanceof Error ? (current.stack ?? current.message) : String(current)
    lines.push(lines.length === 0 ? text : `Caused by: ${text}`)
    current = current instanceof Error ? current.cause : undefined
  }
  return lines
}
