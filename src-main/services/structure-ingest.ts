/**
 * The hook by which pull sync tells chemistry that it committed molecules: the vault's structure
 * index is then brought in step in the background (only new and changed molecules are computed,
 * in the chemistry workers), while sync goes on.
 */
import type { RecordKindName } from '../store/record-kinds.ts'
import type { ChemService } from './chem-service.ts'

export interface StructureIngest {
  /** Records of a kind of a vault were committed to the cache (a page, or a kind's end). */
  committed(connectionId: string, vaultId: number, kind: RecordKindName): void
}

export function structureIngest(chem: Pick<ChemService, 'moleculesChanged'>): StructureIngest {
  return {
    committed(connectionId, vaultId, kind) {
      if (kind === 'molecules') chem.moleculesChanged(connectionId, vaultId)
    },
  }
}
