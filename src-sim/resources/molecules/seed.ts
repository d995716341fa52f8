import { MoleculeGenerator } from '../../chem/molecule-generator.ts'
import type { GeneratedMolecule } from '../../chem/molecule-generator.ts'
import type { SeedContext } from '../../core/module.ts'
import type { Random } from '../../core/random.ts'
import type { CastVault } from '../../core/seed-cast.ts'
import { salts } from '../batches/salts.ts'

const day = 86_400
const chemists = [
  'R. Franklin',
  'A. Lovelace',
  'P. Levi',
  'M. Hopkins',
  'K. Lonsdale',
  'J. Jansen',
  'S. Tanaka',
]
const appearances = [
  'white solid',
  'off-white solid',
  'pale yellow solid',
  'yellow oil',
  'colourless oil',
  'brown gum',
]
const kinaseSeries = new Set(['Aminoquinazolines', 'Ureas', 'Heteroaryl amides', 'Azoles'])

interface Plan {
  vault: CastVault
  count: number
  prefix: string
  /** Project ids for a molecule of a series. */
  projectsFor(series: string, random: Random): number[]
  dataSetId?: number
  /**
   * Full RDKit identity (canonical SMILES, InChI, InChIKey, fingerprint, pickle) at seed time;
   * other molecules get it on demand or in the background (a few milliseconds each, too slow for
   * thousands at start-up).
   */
  identify: boolean
  rich: boolean
}

/**
 * The molecule part of the seeds. `demo`: about 2,000 molecules with batches, synonyms, fields
 * and collections in the main vault, a registration vault and an archive, plus a public data set.
 * `count`: N molecules with one batch each in the main vault, without per-molecule RDKit work.
 */
export function seedMolecules(seed: SeedContext): void {
  if (seed.kind === 'empty') return
  const { cast, random } = seed
  const generator = MoleculeGenerator.create(seed.chem)
  const { kinase, gpcr, confidential, aiExploration, archive } = cast.projects
  const splitProjects = (series: string, rng: Random): number[] => {
    if (rng.chance(0.12)) return [confidential.id]
    const home = kinaseSeries.has(series) ? kinase.id : gpcr.id
    return rng.chance(0.1) ? [kinase.id, gpcr.id] : [home]
  }
  const plans: Plan[] =
    seed.kind === 'count'
      ? [
          {
            vault: cast.vaults.main,
            count: seed.moleculeCount,
            prefix: 'VD',
            projectsFor: (series, rng) => [
              kinaseSeries.has(series) || rng.chance(0.2) ? kinase.id : gpcr.id,
            ],
            identify: false,
            rich: false,
          },
        ]
      : [
          {
            vault: cast.vaults.main,
            count: 1960,
            prefix: 'VD',
            projectsFor: splitProjects,
            identify: false,
            rich: true,
          },
          {
            vault: cast.vaults.main,
            count: 40,
            prefix: 'REF',
            projectsFor: () => [],
            dataSetId: cast.referenceDataSetId,
            identify: false,
            rich: true,
          },
          {
            vault: cast.vaults.ai,
            count: 150,
            prefix: 'AI',
            projectsFor: () => [aiExploration.id],
            identify: true,
            rich: true,
          },
          {
            vault: cast.vaults.closed,
            count: 25,
            prefix: 'ARC',
            projectsFor: () => [archive.id],
            identify: false,
            rich: false,
          },
        ]
  const molecules = generator.generate(
    plans.reduce((sum, plan) => sum + plan.count, 0),
    random,
  )
  let next = 0
  seed.db.transaction(() => {
    for (const plan of plans) {
      insertPlan(seed, plan, molecules.slice(next, next + plan.count))
      next += plan.count
    }
    if (seed.kind === 'demo') seedCollections(seed)
  })()
}

function insertPlan(seed: SeedContext, plan: Plan, molecules: GeneratedMolecule[]): void {
  const { db, random, cast, now } = seed
  const insertMolecule = db.prepare(
    `INSERT INTO molecules (vault_id, name, owner_id, smiles, smiles_is_canonical, cxsmiles, inchi, inchi_key, formula, molecular_weight,
       exact_mass, log_p, log_d, log_s, heavy_atom_count, num_aromatic_rings, num_h_bond_donors, num_h_bond_acceptors,
       num_rotatable_bonds, num_rule_of_5_violations, topological_polar_surface_area, fsp3, fingerprint, pickle, fields,
       created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertMoleculeProject = db.prepare(
    `INSERT INTO molecule_projects (molecule_id, project_id) VALUES (?, ?)`,
  )
  const insertMoleculeDataSet = db.prepare(
    `INSERT INTO molecule_data_sets (molecule_id, data_set_id) VALUES (?, ?)`,
  )
  const insertSynonym = db.prepare(
    `INSERT INTO molecule_synonyms (molecule_id, position, synonym) VALUES (?, ?, ?)`,
  )
  const insertBatch = db.prepare(
    `INSERT INTO batches (vault_id, molecule_id, name, owner_id, data_set_id, salt_name, salt_count, fields, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertBatchProject = db.prepare(
    `INSERT INTO batch_projects (batch_id, project_id) VALUES (?, ?)`,
  )
  const owners = Object.values(cast.users).filter(
    (user) => user.roles[plan.vault.id] && user.roles[plan.vault.id] !== 'reader',
  )
  const span = 730 * day
  molecules.forEach((molecule, index) => {
    const createdAt =
      now -
      span +
      Math.floor(((index + 1) / (molecules.length + 1)) * span) -
      random.integer(0, day)
    const modifiedAt = Math.min(
      now - 60,
      createdAt + (random.chance(0.4) ? random.integer(0, 60 * day) : 0),
    )
    const identity = plan.identify ? identify(seed, molecule.smiles) : undefined
    const smiles = identity?.smiles ?? molecule.smiles
    const fingerprint = identity?.fingerprint ?? null
    const p = molecule.properties
    const fields: Record<string, string | number> = { Series: molecule.series }
    if (plan.rich) {
      if (random.chance(0.5)) fields.Priority = random.integer(1, 5)
      fields['First Synthesized'] = new Date(createdAt * 1000).toISOString().slice(0, 10)
    }
    const vendor = plan.rich && random.chance(0.15)
    if (vendor) fields['Supplier ID'] = `Z${String(random.integer(100_000_000, 999_999_999))}`
    const ownerId = random.pick(owners).id
    const moleculeId = Number(
      insertMolecule.run(
        plan.vault.id,
        `${plan.prefix}-${String(index + 1).padStart(6, '0')}`,
        ownerId,
        smiles,
        Number(plan.identify),
        smiles,
        identity?.inchi ?? null,
        identity?.inchiKey ?? null,
        p.formula,
        p.molecularWeight,
        p.exactMass,
        p.logP,
        p.logD,
        p.logS,
        p.heavyAtomCount,
        p.numAromaticRings,
        p.numHBondDonors,
        p.numHBondAcceptors,
        p.numRotatableBonds,
        p.numRuleOf5Violations,
        p.topologicalPolarSurfaceArea,
        p.fsp3,
        fingerprint,
        identity?.pickle ?? null,
        JSON.stringify(fields),
        createdAt,
        modifiedAt,
      ).lastInsertRowid,
    )
    const projectIds = plan.projectsFor(molecule.series, random)
    for (const projectId of projectIds) insertMoleculeProject.run(moleculeId, projectId)
    if (plan.dataSetId !== undefined) insertMoleculeDataSet.run(moleculeId, plan.dataSetId)
    const synonyms = [
      ...(random.chance(plan.rich ? 0.3 : 0.2) ? [`CMPD-${random.integer(10_000, 99_999)}`] : []),
      ...(vendor ? [fields['Supplier ID'] as string] : []),
    ]
    synonyms.forEach((synonym, position) => insertSynonym.run(moleculeId, position, synonym))
    const batchCount = plan.rich ? (random.chance(0.7) ? 1 : random.chance(0.73) ? 2 : 3) : 1
    for (let batchIndex = 1; batchIndex <= batchCount; batchIndex++) {
      const batchCreated = Math.min(
        now - 60,
        createdAt + (batchIndex - 1) * random.integer(day, 90 * day),
      )
      const salt = plan.rich && random.chance(0.15) ? random.pick(salts).name : null
      const batchFields: Record<string, string | number> = {
        'Purity (%)': Math.round(random.gaussian(96, 2.5) * 10) / 10,
        Chemist: random.pick(chemists),
      }
      if (plan.rich) {
        batchFields['Lot Number'] = `L${random.integer(10_000, 99_999)}`
        batchFields.Appearance = random.pick(appearances)
        batchFields['Date Received'] = new Date(batchCreated * 1000).toISOString().slice(0, 10)
      }
      const batchId = Number(
        insertBatch.run(
          plan.vault.id,
          moleculeId,
          String(batchIndex).padStart(3, '0'),
          ownerId,
          plan.dataSetId ?? null,
          salt,
          salt ? 1 : 0,
          JSON.stringify(batchFields),
          batchCreated,
          batchCreated,
        ).lastInsertRowid,
      )
      for (const projectId of projectIds) insertBatchProject.run(batchId, projectId)
      seed.batches.push({ id: batchId, vaultId: plan.vault.id, moleculeId, projectIds })
    }
  })
}

function seedCollections(seed: SeedContext): void {
  const { db, cast, random, now } = seed
  const insertCollection = db.prepare(
    `INSERT INTO collections (vault_id, name, owner_id, kind, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
  )
  const insertMember = db.prepare(
    `INSERT OR IGNORE INTO collection_molecules (collection_id, molecule_id) VALUES (?, ?)`,
  )
  const moleculesIn = (projectId: number) =>
    db
      .prepare(
        `SELECT molecule_id FROM molecule_projects WHERE project_id = ? ORDER BY molecule_id`,
      )
      .pluck()
      .all(projectId) as number[]
  const kinase = moleculesIn(cast.projects.kinase.id)
  const gpcr = moleculesIn(cast.projects.gpcr.id)
  const plans: [string, number, 'vault_collection' | 'user_collection', number[], number][] = [
    ['Kinase Hit List', cast.users.admin.id, 'vault_collection', kinase, 60],
    ['GPCR Follow-up', cast.users.admin.id, 'vault_collection', gpcr, 40],
    ['Rosalind Favourites', cast.users.writer.id, 'user_collection', [...kinase, ...gpcr], 25],
    ['Dorothy Reading List', cast.users.reader.id, 'user_collection', kinase, 10],
  ]
  for (const [name, ownerId, kind, pool, size] of plans) {
    const created = now - random.integer(30, 300) * day
    const id = Number(
      insertCollection.run(cast.vaults.main.id, name, ownerId, kind, created, created + 5 * day)
        .lastInsertRowid,
    )
    for (let index = 0; index < size; index++) insertMember.run(id, random.pick(pool))
  }
}

/**
 * Canonical SMILES, InChI, InChIKey, fingerprint and pickle (the properties come from the
 * generator).
 */
function identify(seed: SeedContext, smiles: string) {
  return {
    smiles: seed.chem.canonicalSmiles(smiles),
    ...seed.chem.inchi(smiles),
    ...seed.chem.searchForms(smiles),
  }
}
