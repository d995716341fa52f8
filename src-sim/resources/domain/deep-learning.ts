import type { Mol } from '@rdkit/rdkit'
import { ChemistryError } from '../../chem/chemistry.ts'
import { tanimoto } from '../../chem/fingerprint.ts'
import type { RequestContext } from '../../core/context.ts'
import type { VaultAccess } from '../../core/sim-core.ts'
import { badRequest, HttpError, unauthorized } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import type { Params } from '../../core/params.ts'
import { fragmentStructure, suggestReplacements, type Fragment } from '../../pure/bioisosteres.ts'
import { readableProjects } from './access-rules.ts'

/**
 * The deep-learning operations of vaults with the feature on. Similarity is real: Tanimoto over
 * Morgan fingerprints (radius 2, 1024 bits) of the vault's molecules. Fragmentation and
 * bioisostere suggestions stand in for the vault's model with the rule table of
 * src-sim/pure/bioisostere-rules.ts.
 *
 * Answers (the spec leaves them open):
 * - bioisosteres: `{structure, fragments: [{fragment_index, group, fragment_smiles, atom_indices,
 *   suggestions: [{smiles, replacement, score, inchi_key?, identifiers?}]}]}`
 * - flat: `{structure, suggestions: [{fragment_index, group, fragment_smiles, atom_indices,
 *   smiles, replacement, score, ...}]}`, best score first
 * - get_fragmentation: `{structure, fragments: [{fragment_index, group, fragment_smiles,
 *   atom_indices}]}`
 * - similarity: body `{structure, number_results (default 10, at most 200), threshold (0..1)}`,
 *   answer `{structure, results: [{molecule, name, smiles, similarity}]}`, most similar first
 */

const MAX_SUGGESTIONS = 200
const MAX_RESULTS = 200

interface SuggestionOptions {
  numberSuggestions: number
  returnKnownIdentifiers: boolean
  lookupInternalIdentifiers: boolean
  filterStructureAlerts: boolean
  atomIndices: number[] | undefined
}

function requireDeepLearning(ctx: RequestContext): void {
  if (!ctx.access.vault.deepLearning) {
    throw unauthorized(`Deep learning is not enabled for vault ${ctx.access.vault.id}`)
  }
}

/** Parameter problems of these operations are 400s (the spec's status for them), not 422s. */
async function readBody<T>(ctx: RequestContext, read: (params: Params) => T): Promise<T> {
  requireDeepLearning(ctx)
  const params = await ctx.input()
  try {
    const result = read(params)
    params.rejectUnknown()
    return result
  } catch (error) {
    if (error instanceof HttpError && error.status === 422) throw badRequest(error.message)
    throw error
  }
}

function readStructure(params: Params): string {
  const structure = params.string('structure')
  if (structure === undefined) throw badRequest('structure is required: a SMILES or MOL string')
  return structure
}

function readSuggestionOptions(params: Params): SuggestionOptions {
  const requested = params.integer('number_suggestions', { min: 1 }) ?? 5
  return {
    numberSuggestions: Math.min(requested, MAX_SUGGESTIONS),
    returnKnownIdentifiers: params.boolean('return_known_identifiers', false),
    lookupInternalIdentifiers: params.boolean('lookup_internal_identifiers', false),
    filterStructureAlerts: params.boolean('filter_structure_alerts', true),
    atomIndices: readAtomIndices(params),
  }
}

function readAtomIndices(params: Params): number[] | undefined {
  const raw = params.raw('filter_by_atom_indices')
  if (raw === undefined || raw === null) return undefined
  if (
    !Array.isArray(raw) ||
    raw.some((index) => !Number.isInteger(index) || (index as number) < 0)
  ) {
    throw badRequest('filter_by_atom_indices must be an array of atom indices (integers from 0)')
  }
  return raw as number[]
}

/** Runs `use` on the parsed structure; an unreadable structure is a 400. */
function withStructure<T>(ctx: RequestContext, structure: string, use: (mol: Mol) => T): T {
  try {
    return ctx.sim.chem.withMol(structure, use)
  } catch (error) {
    if (error instanceof ChemistryError) throw badRequest(`structure: ${error.message}`)
    throw error
  }
}

function selectFragments(
  mol: Mol,
  ctx: RequestContext,
  atomIndices: number[] | undefined,
): (Fragment & { index: number })[] {
  return fragmentStructure(ctx.sim.chem, mol)
    .map((fragment, index) => ({ ...fragment, index }))
    .filter(
      (fragment) => !atomIndices || fragment.atomIndices.some((atom) => atomIndices.includes(atom)),
    )
}

interface FragmentRecord {
  fragment_index: number
  group: string
  fragment_smiles: string
  atom_indices: number[]
}

function fragmentRecord(fragment: Fragment & { index: number }): FragmentRecord {
  return {
    fragment_index: fragment.index,
    group: fragment.group,
    fragment_smiles: fragment.fragmentSmiles,
    atom_indices: fragment.atomIndices,
  }
}

/** Suggestions of every selected fragment, each limited to number_suggestions. */
function suggestionsByFragment(ctx: RequestContext, structure: string, options: SuggestionOptions) {
  return withStructure(ctx, structure, (mol) => ({
    structure: mol.get_smiles(),
    fragments: selectFragments(mol, ctx, options.atomIndices).map((fragment) => ({
      fragment,
      suggestions: suggestReplacements(ctx.sim.chem, mol, fragment, {
        filterStructureAlerts: options.filterStructureAlerts,
      })
        .slice(0, options.numberSuggestions)
        .map((suggestion) => ({
          smiles: suggestion.smiles,
          replacement: suggestion.replacement,
          score: suggestion.score,
          ...identifiersOf(ctx.access, suggestion.smiles, options),
        })),
    })),
  }))
}

/**
 * With return_known_identifiers, the suggestion's InChIKey and its known identifiers; with
 * lookup_internal_identifiers, vault molecules whose InChIKey shares the first 14 characters
 * (stereoisomers match) join the identifiers as the Internal collection. The simulator knows no
 * public compound registries, so only Internal identifiers ever appear.
 */
function identifiersOf(
  access: VaultAccess,
  smiles: string,
  options: SuggestionOptions,
): Record<string, unknown> {
  if (!options.returnKnownIdentifiers && !options.lookupInternalIdentifiers) return {}
  const inchiKey = access.sim.chem.inchiKey(smiles)
  const identifiers = options.lookupInternalIdentifiers
    ? (
        access.db
          .prepare(
            `SELECT molecules.id, molecules.name FROM molecules WHERE vault_id = ? AND substr(inchi_key, 1, 14) = ?
             AND EXISTS (SELECT 1 FROM molecule_projects WHERE molecule_id = molecules.id
                         AND project_id IN (SELECT value FROM json_each(?)))
             ORDER BY molecules.id`,
          )
          .all(access.vault.id, inchiKey.slice(0, 14), readableProjects(access)) as {
          id: number
          name: string
        }[]
      ).map((molecule) => ({ collection: 'Internal', molecule: molecule.id, name: molecule.name }))
    : []
  return { ...(options.returnKnownIdentifiers ? { inchi_key: inchiKey } : {}), identifiers }
}

async function bioisosteres(ctx: RequestContext): Promise<unknown> {
  const { structure, options } = await readBody(ctx, (params) => ({
    structure: readStructure(params),
    options: readSuggestionOptions(params),
  }))
  const result = suggestionsByFragment(ctx, structure, options)
  return {
    structure: result.structure,
    fragments: result.fragments.map(({ fragment, suggestions }) => ({
      ...fragmentRecord(fragment),
      suggestions,
    })),
  }
}

async function flatBioisosteres(ctx: RequestContext): Promise<unknown> {
  const { structure, options } = await readBody(ctx, (params) => ({
    structure: readStructure(params),
    options: readSuggestionOptions(params),
  }))
  const result = suggestionsByFragment(ctx, structure, options)
  return {
    structure: result.structure,
    suggestions: result.fragments
      .flatMap(({ fragment, suggestions }) =>
        suggestions.map((suggestion) => ({ ...fragmentRecord(fragment), ...suggestion })),
      )
      .sort((a, b) => b.score - a.score || a.fragment_index - b.fragment_index),
  }
}

async function fragmentation(ctx: RequestContext): Promise<unknown> {
  const { structure, atomIndices } = await readBody(ctx, (params) => ({
    structure: readStructure(params),
    atomIndices: readAtomIndices(params),
  }))
  return withStructure(ctx, structure, (mol) => ({
    structure: mol.get_smiles(),
    fragments: selectFragments(mol, ctx, atomIndices).map(fragmentRecord),
  }))
}

async function similarity(ctx: RequestContext): Promise<unknown> {
  const { structure, limit, threshold } = await readBody(ctx, (params) => {
    const threshold = params.number('threshold') ?? 0
    if (threshold < 0 || threshold > 1)
      throw badRequest(`threshold must be between 0 and 1, got ${threshold}`)
    return {
      structure: readStructure(params),
      limit: Math.min(params.integer('number_results', { min: 1 }) ?? 10, MAX_RESULTS),
      threshold,
    }
  })
  const query = withStructure(ctx, structure, (mol) => ({
    smiles: mol.get_smiles(),
    fingerprint: ctx.sim.chem.fingerprint(mol.get_smiles()),
  }))
  const molecules = ctx.db
    .prepare(
      `SELECT id, name, smiles, fingerprint FROM molecules WHERE vault_id = ? AND smiles IS NOT NULL
       AND EXISTS (SELECT 1 FROM molecule_projects WHERE molecule_id = molecules.id
                   AND project_id IN (SELECT value FROM json_each(?)))`,
    )
    .all(ctx.access.vault.id, readableProjects(ctx.access)) as {
    id: number
    name: string
    smiles: string
    fingerprint: Buffer | null
  }[]
  const ranked = molecules
    .map((molecule) => ({
      molecule: molecule.id,
      name: molecule.name,
      smiles: molecule.smiles,
      similarity: tanimoto(
        query.fingerprint,
        molecule.fingerprint ?? ctx.sim.chem.fingerprint(molecule.smiles),
      ),
    }))
    .filter((result) => result.similarity >= threshold)
    .sort((a, b) => b.similarity - a.similarity || a.molecule - b.molecule)
    .slice(0, limit)
    .map((result) => ({ ...result, similarity: Number(result.similarity.toFixed(4)) }))
  return { structure: query.smiles, results: ranked }
}

export const deepLearningModule: SimModule = {
  name: 'deep learning',
  routes(router) {
    router.post('/vaults/{vault_id}/ai/bioisosteres', bioisosteres)
    router.post('/vaults/{vault_id}/ai/bioisosteres/flat', flatBioisosteres)
    router.post('/vaults/{vault_id}/ai/bioisosteres/get_fragmentation', fragmentation)
    router.post('/vaults/{vault_id}/ai/similarity', similarity)
  },
}
