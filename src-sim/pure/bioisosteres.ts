import type { MainModule as RDKitModule, Mol } from '@rdkit/rdkit'
import type { Chemistry } from '../chem/chemistry.ts'
import { BIOISOSTERE_RULES, STRUCTURE_ALERTS } from './bioisostere-rules.ts'

/**
 * Fragmentation and bioisostere suggestions by the rule table of bioisostere-rules.ts, applied
 * with RDKit reactions one fragment at a time.
 */

export interface Fragment {
  group: string
  fragmentSmiles: string
  /** Atom indices of the fragment in the input structure, ascending. */
  atomIndices: number[]
}

export interface Suggestion {
  /** Canonical SMILES of the whole molecule with the fragment replaced. */
  smiles: string
  replacement: string
  score: number
}

/** Isotope that marks the atoms of the fragment being replaced; no real nuclide has it. */
const SITE_MARK = 999
const SITE_QUERY = `${SITE_MARK}*`
const MARKED_ATOM = new RegExp(`\\[${SITE_MARK}([^\\]]*)\\]`, 'g')
const MAX_PRODUCTS_PER_REACTION = 50

/** Every rule fragment in the molecule, ordered by first atom; one entry per distinct atom set. */
export function fragmentStructure(chemistry: Chemistry, mol: Mol): Fragment[] {
  const fragments: Fragment[] = []
  const seen = new Set<string>()
  for (const rule of BIOISOSTERE_RULES) {
    for (const atomIndices of matchAtomSets(chemistry.rdkit, mol, rule.fragment)) {
      const key = `${rule.group}:${atomIndices.join(',')}`
      if (seen.has(key)) continue
      seen.add(key)
      fragments.push({ group: rule.group, fragmentSmiles: rule.fragmentSmiles, atomIndices })
    }
  }
  return fragments.sort(
    (a, b) => a.atomIndices[0]! - b.atomIndices[0]! || a.group.localeCompare(b.group),
  )
}

/**
 * The replacements for one fragment, best score first, without duplicates or the input itself.
 * With filterStructureAlerts, suggestions that introduce a structure alert are left out.
 */
export function suggestReplacements(
  chemistry: Chemistry,
  mol: Mol,
  fragment: Fragment,
  options: { filterStructureAlerts: boolean },
): Suggestion[] {
  const rule = BIOISOSTERE_RULES.find((candidate) => candidate.group === fragment.group)
  if (!rule) throw new Error(`No bioisostere rule for fragment group ${fragment.group}`)
  const rdkit = chemistry.rdkit
  const input = mol.get_smiles()
  const inputAlerts = alertsOf(rdkit, mol)
  const marked = markAtoms(rdkit, mol, fragment.atomIndices)
  const suggestions = new Map<string, Suggestion>()
  try {
    for (const replacement of rule.replacements) {
      for (const smiles of runReplacement(rdkit, marked, replacement.reaction)) {
        if (smiles === input || suggestions.has(smiles)) continue
        if (options.filterStructureAlerts && introducesAlert(chemistry, smiles, inputAlerts)) {
          continue
        }
        suggestions.set(smiles, { smiles, replacement: replacement.name, score: replacement.score })
      }
    }
  } finally {
    marked.delete()
  }
  return [...suggestions.values()].sort(
    (a, b) => b.score - a.score || a.smiles.localeCompare(b.smiles),
  )
}

function matchAtomSets(rdkit: RDKitModule, mol: Mol, smarts: string): number[][] {
  const query = rdkit.get_qmol(smarts)
  if (!query) throw new Error(`Invalid SMARTS in the bioisostere rule table: ${smarts}`)
  try {
    const raw = JSON.parse(mol.get_substruct_matches(query) || '[]') as
      { atoms: number[] }[] | { atoms: number[] }
    const matches = Array.isArray(raw) ? raw : [raw]
    return matches
      .filter((match) => Array.isArray(match.atoms) && match.atoms.length > 0)
      .map((match) => [...match.atoms].sort((a, b) => a - b))
  } finally {
    query.delete()
  }
}

function markAtoms(rdkit: RDKitModule, mol: Mol, atomIndices: readonly number[]): Mol {
  const json = JSON.parse(mol.get_json()) as {
    molecules: { atoms: Record<string, unknown>[] }[]
  }
  const atoms = json.molecules[0]!.atoms
  for (const index of atomIndices) atoms[index] = { ...atoms[index], isotope: SITE_MARK }
  const marked = rdkit.get_mol(JSON.stringify(json))
  if (!marked) throw new Error('RDKit could not rebuild the molecule with marked atoms')
  return marked
}

function runReplacement(rdkit: RDKitModule, marked: Mol, reactionSmarts: string): string[] {
  const reaction = rdkit.get_rxn(reactionSmarts.replaceAll('{site}', SITE_QUERY))
  if (!reaction)
    throw new Error(`Invalid reaction in the bioisostere rule table: ${reactionSmarts}`)
  const reactants = new rdkit.MolList()
  const products: string[] = []
  try {
    reactants.append(marked)
    const outcomes = reaction.run_reactants(reactants, MAX_PRODUCTS_PER_REACTION)
    try {
      for (let outcome = 0; outcome < outcomes.size(); outcome += 1) {
        const list = outcomes.get(outcome)
        const product = list?.at(0)
        if (product) {
          const smiles = cleanProduct(rdkit, product.get_smiles())
          if (smiles) products.push(smiles)
          product.delete()
        }
        list?.delete()
      }
    } finally {
      outcomes.delete()
    }
  } finally {
    reactants.delete()
    reaction.delete()
  }
  return products
}

/** Removes the site marks and sanitizes; reaction products that are not valid molecules vanish. */
function cleanProduct(rdkit: RDKitModule, rawSmiles: string): string | undefined {
  const mol = rdkit.get_mol(rawSmiles.replace(MARKED_ATOM, '[$1]'))
  if (!mol) return undefined
  try {
    return mol.is_valid() && mol.get_num_atoms() > 0 ? mol.get_smiles() : undefined
  } finally {
    mol.delete()
  }
}

function alertsOf(rdkit: RDKitModule, mol: Mol): Set<string> {
  return new Set(
    STRUCTURE_ALERTS.filter((alert) => matchAtomSets(rdkit, mol, alert.smarts).length > 0).map(
      (alert) => alert.name,
    ),
  )
}

function introducesAlert(chemistry: Chemistry, smiles: string, inputAlerts: Set<string>): boolean {
  return chemistry.withMol(smiles, (mol) =>
    [...alertsOf(chemistry.rdkit, mol)].some((alert) => !inputAlerts.has(alert)),
  )
}
