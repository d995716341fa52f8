import { ChemistryError } from '../../chem/chemistry.ts'
import type { Chemistry } from '../../chem/chemistry.ts'
import { hillFormula } from '../../chem/elements.ts'
import { tanimoto } from '../../chem/fingerprint.ts'
import { invalid } from '../../core/http-error.ts'
import { searchIndexed } from './search-index.ts'
import type { SimCore } from '../../core/sim-core.ts'

export type StructureSearchType = 'exact' | 'substructure' | 'similarity'

export interface StructureSearch {
  structure: string
  type: StructureSearchType
  threshold: number
}

/** Matching molecule ids, best first for similarity, and their similarity scores. */
export interface StructureHits {
  ids: number[]
  scores: Map<number, number> | undefined
}

const cache = new WeakMap<SimCore, Map<string, StructureHits>>()
const cacheSize = 8
/** Molecules checked between yields to the event loop, so a long scan does not stall others. */
const scanSlice = 200

/**
 * Structure search over one vault with RDKit. Exact search compares canonical SMILES among the
 * molecules with the query's formula; substructure and similarity scan the vault, one RDKit
 * molecule at a time (nothing stays in WASM memory), reading stored pickles where there are
 * some and filling in the fingerprints that bulk-seeded molecules lack. While a background pass
 * identifies a large vault (search-index.ts), they wait for it instead. Results are cached until
 * the next write.
 */
export async function searchStructures(
  sim: SimCore,
  vaultId: number,
  search: StructureSearch,
): Promise<StructureHits> {
  const key = `${vaultId}|${search.type}|${search.threshold}|${search.structure}|${sim.dataVersion}`
  let entries = cache.get(sim)
  if (!entries) cache.set(sim, (entries = new Map()))
  const cached = entries.get(key)
  if (cached) return cached
  const hits = await runSearch(sim, vaultId, search)
  entries.set(key, hits)
  if (entries.size > cacheSize) entries.delete(entries.keys().next().value as string)
  return hits
}

async function runSearch(
  sim: SimCore,
  vaultId: number,
  search: StructureSearch,
): Promise<StructureHits> {
  const query = readQuery(sim.chem, search)
  switch (search.type) {
    case 'exact':
      return { ids: exactMatches(sim, vaultId, query.canonical, query.formula), scores: undefined }
    case 'substructure':
      return {
        ids: await substructureMatches(sim, vaultId, search.structure, query.heavyAtoms),
        scores: undefined,
      }
    case 'similarity':
      return similarityMatches(sim, vaultId, query.fingerprint, search.threshold)
  }
}

function readQuery(chem: Chemistry, search: StructureSearch) {
  try {
    return chem.withMol(search.structure, (mol) => ({
      canonical: mol.get_smiles(),
      heavyAtoms: mol.get_num_atoms(true),
      formula: hillFormula(chem.elementCounts(search.structure)),
      fingerprint: chem.fingerprint(search.structure),
    }))
  } catch (error) {
    if (error instanceof ChemistryError) throw invalid('structure', error.message)
    throw error
  }
}

/** Canonicalising bulk-seeded SMILES changes stored records, so cached answers are dropped. */
function exactMatches(sim: SimCore, vaultId: number, canonical: string, formula: string): number[] {
  const { db, chem } = sim
  const candidates = db
    .prepare(
      `SELECT id, smiles, smiles_is_canonical FROM molecules WHERE vault_id = ? AND formula = ? ORDER BY id`,
    )
    .all(vaultId, formula) as { id: number; smiles: string | null; smiles_is_canonical: number }[]
  const store = db.prepare(`UPDATE molecules SET smiles = ?, smiles_is_canonical = 1 WHERE id = ?`)
  return candidates
    .filter((candidate) => {
      if (candidate.smiles === null) return false
      let smiles = candidate.smiles
      if (candidate.smiles_is_canonical !== 1) {
        smiles = chem.canonicalSmiles(smiles)
        store.run(smiles, candidate.id)
        sim.dataVersion++
      }
      return smiles === canonical
    })
    .map((candidate) => candidate.id)
}

async function substructureMatches(
  sim: SimCore,
  vaultId: number,
  structure: string,
  heavyAtoms: number,
): Promise<number[]> {
  let matcher
  try {
    matcher = sim.chem.substructureMatcher(structure)
  } catch (error) {
    if (error instanceof ChemistryError) throw invalid('structure', error.message)
    throw error
  }
  try {
    await searchIndexed(sim, vaultId, 'search forms')
    const rows = sim.db
      .prepare(
        `SELECT id, smiles, pickle FROM molecules WHERE vault_id = ? AND smiles IS NOT NULL AND heavy_atom_count >= ?
         ORDER BY id`,
      )
      .all(vaultId, heavyAtoms) as { id: number; smiles: string; pickle: Uint8Array | null }[]
    const ids: number[] = []
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!
      if (matcher.matches(row.pickle ?? row.smiles)) ids.push(row.id)
      if (index % scanSlice === scanSlice - 1) await new Promise((resolve) => setImmediate(resolve))
    }
    return ids
  } finally {
    matcher.dispose()
  }
}

async function similarityMatches(
  sim: SimCore,
  vaultId: number,
  queryFingerprint: Uint8Array,
  threshold: number,
): Promise<StructureHits> {
  await searchIndexed(sim, vaultId, 'search forms')
  const rows = sim.db
    .prepare(
      `SELECT id, smiles, fingerprint FROM molecules WHERE vault_id = ? AND smiles IS NOT NULL ORDER BY id`,
    )
    .all(vaultId) as { id: number; smiles: string; fingerprint: Uint8Array | null }[]
  const store = sim.db.prepare(`UPDATE molecules SET pickle = ?, fingerprint = ? WHERE id = ?`)
  const scores = new Map<number, number>()
  let computed = 0
  for (const row of rows) {
    let fingerprint = row.fingerprint
    if (!fingerprint) {
      const forms = sim.chem.searchForms(row.smiles)
      fingerprint = forms.fingerprint
      store.run(forms.pickle, fingerprint, row.id)
      if (++computed % scanSlice === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    const score = tanimoto(queryFingerprint, fingerprint)
    if (score >= threshold) scores.set(row.id, Math.round(score * 1000) / 1000)
  }
  const ids = [...scores.keys()].sort((a, b) => scores.get(b)! - scores.get(a)! || a - b)
  return { ids, scores }
}

/**
 * Computes the InChIKeys a vault's bulk-seeded molecules lack (after the background pass, if one
 * runs, has done what it can), so that `inchikey` lookups see every molecule; yields to the event
 * loop as it goes.
 */
export async function completeInchiKeys(sim: SimCore, vaultId: number): Promise<void> {
  await searchIndexed(sim, vaultId, 'inchi')
  const rows = sim.db
    .prepare(
      `SELECT id, smiles FROM molecules WHERE vault_id = ? AND inchi_key IS NULL AND smiles IS NOT NULL`,
    )
    .all(vaultId) as {
    id: number
    smiles: string
  }[]
  const store = sim.db.prepare(`UPDATE molecules SET inchi = ?, inchi_key = ? WHERE id = ?`)
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!
    const identity = sim.chem.inchi(row.smiles)
    store.run(identity.inchi, identity.inchiKey, row.id)
    sim.dataVersion++
    if (index % scanSlice === scanSlice - 1) await new Promise((resolve) => setImmediate(resolve))
  }
}
