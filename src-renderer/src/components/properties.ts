/** One labelled fact of a record, as the property lists of record pages show it. */
export interface Property {
  label: string
  /** Empty values are left out, so that a sparse record does not show a wall of dashes. */
  value: string | null
  /** Identifiers, formulas and SMILES read better in a fixed-width face. */
  mono?: boolean
  /** Makes the value a link to another record. */
  href?: string
  /** A short mark after the value, saying where it comes from ("computed here"). */
  note?: string
}
