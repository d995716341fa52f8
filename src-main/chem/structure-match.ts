/**
 * A structure search asked of a few structures that are not in the index: molecules registered
 * offline and still in the outbox. Each is read and matched as the index's search would match it
 * (substructure with the same stereo rule, exact by canonical SMILES or InChIKey, similarity as
 * Tanimoto on the same Morgan fingerprint), in a worker. They are few, so no screen is needed.
 */
import { AppError } from '../shared/app-error.ts'
import type { Mol, RDKitToolkit } from './rdkit-toolkit.ts'
import { morganFingerprintOf } from './structure-computation.ts'
import type { NormalizedCriterion } from './structure-search-request.ts'
import { isInchiKey } from './structure-query.ts'
import type { TaskContext } from './task-context.ts'

/** Each structure's score against the criterion (1 for a substructure or exact hit), or null. */
export function matchStructures(
  rdkit: RDKitToolkit,
  structures: readonly string[],
  criterion: NormalizedCriterion,
  context: Pick<TaskContext<'matchStructures'>, 'throwIfCancelled'>,
): (number | null)[] {
  const matcher = matcherOf(rdkit, criterion)
  try {
    return structures.map((text) => {
      context.throwIfCancelled()
      const parsed = rdkit.parseMolecule(text)
      if (!parsed.ok) return null
      try {
        return matcher.score(parsed.value)
      } finally {
        parsed.value.delete()
      }
    })
  } finally {
    matcher.release()
  }
}

interface Matcher {
  score(mol: Mol): number | null
  release(): void
}

function matcherOf(rdkit: RDKitToolkit, criterion: NormalizedCriterion): Matcher {
  switch (criterion.kind) {
    case 'substructure': {
      const parsed = rdkit.parseQuery(criterion.query.text, criterion.query.language)
      if (!parsed.ok) throw new AppError('invalid_argument', parsed.problem)
      const query = parsed.value
      const options =
        criterion.query.useChirality && rdkit.specifiesStereo(query)
          ? JSON.stringify({ useChirality: true })
          : null
      return {
        score: (mol) =>
          (options === null
            ? mol.get_substruct_match(query.mol)
            : mol.get_substruct_match(query.mol, options)) !== '{}'
            ? 1
            : null,
        release: () => query.mol.delete(),
      }
    }
    case 'exact': {
      if (isInchiKey(criterion.query)) {
        const key = criterion.query.trim().toUpperCase()
        return {
          score: (mol) => {
            const inchi = mol.get_inchi()
            return inchi && rdkit.module.get_inchikey_for_inchi(inchi) === key ? 1 : null
          },
          release: () => {},
        }
      }
      const canonical = canonicalSmilesOf(rdkit, criterion.query)
      return { score: (mol) => (mol.get_smiles() === canonical ? 1 : null), release: () => {} }
    }
    case 'similarity': {
      const query = parseOrThrow(rdkit, criterion.query)
      let fingerprint: Uint8Array
      try {
        fingerprint = morganFingerprintOf(query)
      } finally {
        query.delete()
      }
      return {
        score: (mol) => {
          const similarity = tanimoto(fingerprint, morganFingerprintOf(mol))
          return similarity >= criterion.threshold ? similarity : null
        },
        release: () => {},
      }
    }
  }
}

function parseOrThrow(rdkit: RDKitToolkit, text: string): Mol {
  const parsed = rdkit.parseMolecule(text)
  if (!parsed.ok) throw new AppError('invalid_argument', parsed.problem)
  return parsed.value
}

function canonicalSmilesOf(rdkit: RDKitToolkit, text: string): string {
  const mol = parseOrThrow(rdkit, text)
  try {
    return mol.get_smiles()
  } finally {
    mol.delete()
  }
}

/** Shared bits over bits set in either (0 when neither has any). */
export function tanimoto(a: Uint8Array, b: Uint8Array): number {
  let both = 0
  let either = 0
  for (let index = 0; index < a.length; index++) {
    both += bitCount(a[index]! & b[index]!)
    either += bitCount(a[index]! | b[index]!)
  }
  return either === 0 ? 0 : both / either
}

function bitCount(byte: number): number {
  let bits = 0
  for (let rest = byte; rest !== 0; rest &= rest - 1) bits++
  return bits
}
