/**
 * The content hash that decides whether a molecule must be recomputed: it covers the structure
 * text, what the vault gave beside it (properties, InChIKey), and what computes the rest (the
 * RDKit version and the recipe), so that an upgrade recomputes everything, exactly once.
 */
import { createHash } from 'node:crypto'
import {
  molecularPropertyNames,
  type MolecularProperties,
} from '../../src-common/chem/molecular-properties.ts'

/** Bump when what is computed per molecule changes (fingerprint parameters, properties, pickles). */
export const recipeVersion = 5

export function contentHash(
  rdkitVersion: string,
  structure: string | null,
  knownProperties: Partial<MolecularProperties>,
  knownInchiKey: string | null,
): string {
  const known = molecularPropertyNames.map((name) => knownProperties[name] ?? null)
  return createHash('sha256')
    .update(JSON.stringify([recipeVersion, rdkitVersion, structure, known, knownInchiKey]))
    .digest('base64url')
}
