import { ChemistryError } from './chemistry.ts'
import type { Chemistry } from './chemistry.ts'

/**
 * The work of the structure index's background pass (see resources/molecule-query/search-index.ts),
 * done in a worker thread: first the search forms of molecules (pickle and fingerprint, which
 * substructure and similarity search need), then their InChI and InChIKey from the pickle.
 */
export type IdentityTask =
  | { phase: 'search forms'; molecules: [id: number, smiles: string][] }
  | { phase: 'inchi'; molecules: [id: number, pickle: Uint8Array][] }

export type IdentityResult =
  | { phase: 'search forms'; results: [id: number, pickle: Uint8Array, fingerprint: Uint8Array][] }
  | { phase: 'inchi'; results: [id: number, inchi: string, inchiKey: string][] }

/** Runs a task; molecules RDKit cannot read are left out of the results. */
export function runIdentityTask(chem: Chemistry, task: IdentityTask): IdentityResult {
  const readable = <T>(compute: () => T): T | undefined => {
    try {
      return compute()
    } catch (error) {
      if (error instanceof ChemistryError) return undefined
      throw error
    }
  }
  if (task.phase === 'search forms') {
    return {
      phase: task.phase,
      results: task.molecules.flatMap(([id, smiles]) => {
        const forms = readable(() => chem.searchForms(smiles))
        return forms ? [[id, forms.pickle, forms.fingerprint]] : []
      }),
    }
  }
  return {
    phase: task.phase,
    results: task.molecules.flatMap(([id, pickle]) => {
      const identity = readable(() => chem.inchi(pickle))
      return identity ? [[id, identity.inchi, identity.inchiKey]] : []
    }),
  }
}
