import type { Services } from '../../services/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { AttachmentChannel } from './channels.ts'

export function attachmentHandlers(services: Services): DomainHandlers<AttachmentChannel> {
  return {
    'attachments.forRecord': ({ connectionId, vaultId, kind, id }) =>
      services.attachments.forRecord(connectionId, vaultId, kind, id),
    'attachments.states': ({ connectionId, vaultId, fileIds }) =>
      services.attachments.states(connectionId, vaultId, fileIds),
    'attachments.fetchNow': ({ connectionId, vaultId, fileId, beyondBudget }) =>
      services.attachments.fetchNow(connectionId, vaultId, fileId, {
        ...(beyondBudget !== undefined ? { beyondBudget } : {}),
      }),
    // A host with a desktop answers it itself (ipc/app/desktop-shell.ts).
    'attachments.open': () => {
      throw new AppError(
        'invalid_argument',
        'This Vault Desk host cannot open files with another application: use the window.',
      )
    },
    'attachments.localPath': async ({ connectionId, vaultId, fileId }) => ({
      path: await services.attachments.pathToLaunch(connectionId, vaultId, fileId),
    }),
    'attachments.preview': ({ connectionId, vaultId, fileId }) =>
      services.attachments.preview(connectionId, vaultId, fileId),
    'attachments.remove': ({ connectionId, vaultId, fileId }) =>
      services.attachments.remove(connectionId, vaultId, fileId),
    'attachments.budget': ({ connectionId }) => services.attachments.budget(connectionId),
    'attachments.setBudget': ({ connectionId, budgetBytes }) =>
      services.attachments.setBudget(connectionId, budgetBytes),
  }
}
