/**
 * Whether structures parse: RDKit reads and sanitizes each one (SMILES, CXSMILES or a molfile)
 * and nothing more is computed (no coordinates, molblock or depiction), so that checking a file's
 * structures costs only what reading them costs. An import check sends its structures here.
 */
import type { RDKitToolkit } from './rdkit-toolkit.ts'
import { isMolfile } from './structure-query.ts'
import type { TaskContext } from './task-context.ts'
import type { ChemWorkerPool } from './worker-pool.ts'

/** Structures per worker task: enough to pay for the message, few enough to share a batch. */
const structuresPerTask = 50

/**
 * Sanitized as always, but without what only a molecule kept for later needs: perceiving stereo
 * and removing explicit hydrogens, half of the time a SMILES takes to read (neither makes a
 * structure that sanitizes unreadable; the tests hold the verdicts to Debian RDKit's).
 */
const readOnly = JSON.stringify({ assignStereo: false, removeHs: false })

/** In a worker: null for each structure that parses, else RDKit's words for what is wrong. */
export function structureProblemsOf(
  rdkit: RDKitToolkit,
  structures: readonly string[],
  context: TaskContext<'checkStructures'>,
): (string | null)[] {
  return structures.map((text) => {
    context.throwIfCancelled()
    // Molfiles take the usual path: reading them logs warnings even when they parse, which the
    // toolkit clears and this path would leave in RDKit's log.
    if (text.trim() !== '' && !isMolfile(text)) {
      const mol = rdkit.module.get_mol(text, readOnly)
      const parses = mol !== null && mol.is_valid() && mol.get_num_atoms() > 0
      mol?.delete()
      if (parses) return null
    }
    // The toolkit says why, in RDKit's words.
    const parsed = rdkit.parseMolecule(text)
    if (!parsed.ok) return parsed.problem
    parsed.value.delete()
    return null
  })
}

/** Checks structures in the pool's workers, shared among them in tasks, answers in order. */
export async function checkStructuresInWorkers(
  pool: ChemWorkerPool,
  structures: readonly string[],
  signal?: AbortSignal,
): Promise<(string | null)[]> {
  const tasks: Promise<(string | null)[]>[] = []
  for (let start = 0; start < structures.length; start += structuresPerTask) {
    tasks.push(
      pool.run(
        { kind: 'checkStructures', structures: structures.slice(start, start + structuresPerTask) },
        signal ? { signal } : {},
      ),
    )
  }
  return (await Promise.all(tasks)).flat()
}
