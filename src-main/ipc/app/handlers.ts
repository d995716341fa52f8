import type { Services } from '../../services/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { AppChannel } from './channels.ts'

/**
 * The services alone have no person's desktop: a host with one answers the save dialog and the
 * file manager itself (`withDesktopShell` in `desktop-shell.ts`); any other host refuses them.
 */
function noDesktop(what: string, instead = "the CLI's --output"): never {
  throw new AppError(
    'invalid_argument',
    `This Vault Desk host has no ${what}: use the window, or ${instead}.`,
  )
}

export function appHandlers(services: Services): DomainHandlers<AppChannel> {
  return {
    'app.info': () => services.info(),
    'app.status': () => services.status.current(),
    'app.notices': () => services.notices.list(),
    'app.dismissNotice': ({ id }) => services.notices.dismiss(id),
    'app.chooseSavePath': () => noDesktop('save dialog'),
    'app.chooseFolder': () => noDesktop('folder dialog', "type the folder's path"),
    'app.showInFolder': () => noDesktop('file manager'),
  }
}
