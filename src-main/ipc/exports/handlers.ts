import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { ExportChannel } from './channels.ts'

export function exportHandlers(services: Services): DomainHandlers<ExportChannel> {
  return {
    'exports.start': ({ connectionId, vaultId, format, columns, bom, path, ...question }) =>
      services.exports.start(
        {
          connectionId,
          vaultId,
          question,
          format,
          columns: columns ?? 'view',
          ...(bom !== undefined ? { bom } : {}),
        },
        path,
      ),
    'exports.startResults': ({ connectionId, vaultId, format, bom, path, ...question }) =>
      services.exports.startResults(
        { connectionId, vaultId, question, format, ...(bom !== undefined ? { bom } : {}) },
        path,
      ),
    'exports.cancel': ({ exportId }) => ({ cancelled: services.exports.cancel(exportId) }),
  }
}
