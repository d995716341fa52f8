/**
 * SVG depictions: thumbnails in lists, larger drawings on detail pages, with the atoms and bonds a
 * substructure query matched highlighted. The background is left transparent so that one cached
 * drawing serves the light and the dark theme.
 */
import { depictionSizes, type DepictionSize } from './depiction-size.ts'

export { depictionSizes, type DepictionSize } from './depiction-size.ts'
import type { Mol } from './rdkit-toolkit.ts'

export interface Highlight {
  atoms: number[]
  bonds: number[]
}

export function drawMolecule(mol: Mol, size: DepictionSize, highlight: Highlight | null): string {
  const details = {
    ...depictionSizes[size],
    clearBackground: false,
    ...(highlight ? { atoms: highlight.atoms, bonds: highlight.bonds } : {}),
  }
  const svg = mol.get_svg_with_highlights(JSON.stringify(details))
  if (!svg.startsWith('<?xml') && !svg.startsWith('<svg')) {
    throw new Error(`RDKit could not draw the molecule: ${svg}`)
  }
  return svg
}

/** The first match of the query in the molecule, or null when the query does not match. */
export function substructureHighlight(
  mol: Mol,
  query: Mol,
  useChirality: boolean,
): Highlight | null {
  const match = JSON.parse(
    mol.get_substruct_match(query, JSON.stringify({ useChirality })),
  ) as Partial<Highlight>
  if (!match.atoms || match.atoms.length === 0) return null
  return { atoms: match.atoms, bonds: match.bonds ?? [] }
}
