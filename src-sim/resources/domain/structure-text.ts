/**
 * Readies a structure for Chemistry.withMol, which trims its input: a molblock whose first
 * (name) line is blank, as most writers leave it, would lose that line and no longer parse. A
 * placeholder name keeps the lines in place; SMILES pass unchanged.
 */
export function keepMolblockLines(structure: string): string {
  const firstBreak = structure.indexOf('\n')
  if (firstBreak < 0 || structure.slice(0, firstBreak).trim() !== '') return structure
  return `untitled${structure}`
}
