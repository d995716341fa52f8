import type { Database } from 'better-sqlite3'
import { ChemistryError } from '../../chem/chemistry.ts'
import type { Chemistry } from '../../chem/chemistry.ts'
import type { SimCore, VaultAccess } from '../../core/sim-core.ts'
import { invalid } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import type { FieldValue } from '../fields.ts'
import type { MoleculeRow } from '../molecule-query/records.ts'

const structureMembers = ['smiles', 'cxsmiles', 'molfile', 'structure'] as const

/** The structure a body supplies, through at most one of smiles, cxsmiles, molfile or structure. */
export function readStructureMember(params: Params): { member: string; text: string } | undefined {
  const supplied = structureMembers.filter((member) => params.has(member))
  if (supplied.length > 1)
    throw invalid(params.nameOf(supplied[1]!), `cannot be given together with ${supplied[0]}`)
  const member = supplied[0]
  if (!member) return undefined
  return { member: params.nameOf(member), text: params.requiredString(member) }
}

/** Project ids from ids or names; every one must be a project the user may add data to. */
export function writableProjects(
  access: VaultAccess,
  values: readonly (number | string)[],
  member: string,
): number[] {
  const projects = access.db
    .prepare(`SELECT id, name FROM projects WHERE vault_id = ?`)
    .all(access.vault.id) as { id: number; name: string }[]
  return [
    ...new Set(
      values.map((value, index) => {
        const project = projects.find((candidate) =>
          typeof value === 'number' ? candidate.id === value : candidate.name === value,
        )
        if (!project || !access.canReadProject(project.id))
          throw invalid(`${member}[${index}]`, `'${value}' is not a project of this vault`)
        if (!access.canEditProject(project.id))
          throw invalid(`${member}[${index}]`, `you may not add data to project '${project.name}'`)
        return project.id
      }),
    ),
  ]
}

/** Collections the user may put molecules in: their own and the vault's. */
export function usableCollections(
  access: VaultAccess,
  ids: readonly number[],
  member: string,
): number[] {
  return ids.map((id, index) => {
    const found = access.db
      .prepare(
        `SELECT id FROM collections WHERE id = ? AND vault_id = ? AND (kind = 'vault_collection' OR owner_id = ?)`,
      )
      .get(id, access.vault.id, access.user.id)
    if (!found) throw invalid(`${member}[${index}]`, `${id} is not a collection of this vault`)
    return id
  })
}

export function assertUnusedName(
  db: Database,
  vaultId: number,
  name: string,
  exceptId: number,
  member = 'name',
): void {
  const clash = db
    .prepare(`SELECT id FROM molecules WHERE vault_id = ? AND name = ? COLLATE NOCASE AND id != ?`)
    .get(vaultId, name, exceptId) as { id: number } | undefined
  if (clash) throw invalid(member, `'${name}' is already the name of molecule ${clash.id}`)
}

/** Stores a structure and everything computed from it; 422 naming the member when unreadable. */
export function writeStructure(
  db: Database,
  chem: Chemistry,
  moleculeId: number,
  structure: { member: string; text: string },
): void {
  let described
  try {
    described = chem.describe(structure.text)
  } catch (error) {
    if (error instanceof ChemistryError) throw invalid(structure.member, error.message)
    throw error
  }
  db.prepare(
    `UPDATE molecules SET smiles = ?, smiles_is_canonical = 1, cxsmiles = ?, original_structure = ?, inchi = ?, inchi_key = ?,
       molfile = NULL, formula = ?, molecular_weight = ?, exact_mass = ?, log_p = ?, log_d = ?, log_s = ?, heavy_atom_count = ?,
       num_aromatic_rings = ?, num_h_bond_donors = ?, num_h_bond_acceptors = ?, num_rotatable_bonds = ?,
       num_rule_of_5_violations = ?, topological_polar_surface_area = ?, fsp3 = ?, fingerprint = ?, pickle = ?,
       registration_type = 'CHEMICAL_STRUCTURE'
     WHERE id = ?`,
  ).run(
    described.smiles,
    described.cxsmiles,
    structure.text,
    described.inchi,
    described.inchiKey,
    described.formula,
    described.molecularWeight,
    described.exactMass,
    described.logP,
    described.logD,
    described.logS,
    described.heavyAtomCount,
    described.numAromaticRings,
    described.numHBondDonors,
    described.numHBondAcceptors,
    described.numRotatableBonds,
    described.numRuleOf5Violations,
    described.topologicalPolarSurfaceArea,
    described.fsp3,
    described.fingerprint,
    described.pickle,
    moleculeId,
  )
}

/**
 * Fills the identifiers bulk-seeded molecules lack (canonical SMILES, InChI, InChIKey, molfile)
 * before a single molecule is shown. The stored record changes, so cached answers are dropped.
 */
export function completeIdentity(sim: SimCore, moleculeId: number): void {
  const row = sim.db
    .prepare(`SELECT * FROM molecules WHERE id = ?`)
    .get(moleculeId) as MoleculeRow & {
    smiles_is_canonical: number
  }
  if (!row.smiles || (row.smiles_is_canonical === 1 && row.inchi && row.molfile)) return
  const smiles = row.smiles
  sim.chem.withMol(smiles, (mol) => {
    const inchi = row.inchi ?? mol.get_inchi()
    sim.db
      .prepare(
        `UPDATE molecules SET smiles = ?, smiles_is_canonical = 1, inchi = ?, inchi_key = ?, molfile = ? WHERE id = ?`,
      )
      .run(
        mol.get_smiles(),
        inchi,
        row.inchi_key ?? sim.chem.rdkit.get_inchikey_for_inchi(inchi),
        row.molfile ?? mol.get_molblock(),
        moleculeId,
      )
  })
  sim.dataVersion++
}

export function replaceSynonyms(
  db: Database,
  moleculeId: number,
  synonyms: readonly string[],
): void {
  db.prepare(`DELETE FROM molecule_synonyms WHERE molecule_id = ?`).run(moleculeId)
  const insert = db.prepare(
    `INSERT INTO molecule_synonyms (molecule_id, position, synonym) VALUES (?, ?, ?)`,
  )
  ;[
    ...new Set(synonyms.map((synonym) => synonym.trim()).filter((synonym) => synonym !== '')),
  ].forEach((synonym, position) => insert.run(moleculeId, position, synonym))
}

export function synonymsOf(db: Database, moleculeId: number): string[] {
  return db
    .prepare(`SELECT synonym FROM molecule_synonyms WHERE molecule_id = ? ORDER BY position`)
    .pluck()
    .all(moleculeId) as string[]
}

export interface NewMolecule {
  name: string
  description?: string | undefined
  structure?: { member: string; text: string } | undefined
  registrationType?: string | undefined
  synonyms?: readonly string[] | undefined
  fields?: Record<string, FieldValue> | undefined
  projectIds: readonly number[]
  collectionIds?: readonly number[] | undefined
}

/** Inserts a molecule (validated by the caller) and answers its id. */
export function insertMolecule(access: VaultAccess, molecule: NewMolecule): number {
  const db = access.db
  const now = access.sim.clock.nowSeconds()
  const id = Number(
    db
      .prepare(
        `INSERT INTO molecules (vault_id, name, registration_type, description, owner_id, fields, created_at, modified_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        access.vault.id,
        molecule.name,
        molecule.registrationType ?? 'CHEMICAL_STRUCTURE',
        molecule.description ?? null,
        access.user.id,
        JSON.stringify(molecule.fields ?? {}),
        now,
        now,
      ).lastInsertRowid,
  )
  if (molecule.structure) writeStructure(db, access.sim.chem, id, molecule.structure)
  const addProject = db.prepare(
    `INSERT INTO molecule_projects (molecule_id, project_id) VALUES (?, ?)`,
  )
  for (const projectId of molecule.projectIds) addProject.run(id, projectId)
  replaceSynonyms(db, id, molecule.synonyms ?? [])
  const addToCollection = db.prepare(
    `INSERT OR IGNORE INTO collection_molecules (collection_id, molecule_id) VALUES (?, ?)`,
  )
  for (const collectionId of molecule.collectionIds ?? []) addToCollection.run(collectionId, id)
  return id
}

/**
 * Deletes a molecule that has no batches left, with its project and data set memberships, its
 * synonyms, its places in collections and whatever other modules attach to it.
 */
export function deleteMolecule(sim: SimCore, moleculeId: number): void {
  sim.db.transaction(() => {
    const batches = sim.db
      .prepare(`SELECT COUNT(*) FROM batches WHERE molecule_id = ?`)
      .pluck()
      .get(moleculeId) as number
    if (batches > 0)
      throw new Error(`Molecule ${moleculeId} still has ${batches} batches and cannot be deleted`)
    sim.deleteMoleculeDependents(moleculeId)
    sim.db.prepare(`DELETE FROM molecules WHERE id = ?`).run(moleculeId)
  })()
}
