import type { Services } from '../../services/index.ts'
import type { DomainHandlers } from '../dispatcher.ts'
import type { ChemChannel } from './channels.ts'

export function chemHandlers(services: Services): DomainHandlers<ChemChannel> {
  const chem = services.chem
  return {
    'chem.depict': ({ connectionId, vaultId, moleculeId, size, highlight }) =>
      chem.depict(connectionId, vaultId, moleculeId, {
        ...(size ? { size } : {}),
        ...(highlight ? { highlight } : {}),
      }),
    'chem.depictMany': ({ connectionId, vaultId, moleculeIds, size }) =>
      chem.depictMany(connectionId, vaultId, moleculeIds, size),
    'chem.depictQuery': ({ text, language }) => chem.depictQuery(text, language),
    'chem.properties': ({ connectionId, vaultId, moleculeId }) =>
      chem.properties(connectionId, vaultId, moleculeId),
    'chem.indexState': ({ connectionId, vaultId }) => chem.indexState(connectionId, vaultId),
    'chem.serverTools': ({ connectionId, vaultId, moleculeId, tool }) =>
      chem.serverTools(connectionId, vaultId, moleculeId, tool),
    'chem.novelty': ({ connectionId, vaultId, structure }) =>
      services.novelty.check(connectionId, vaultId, structure),
  }
}
