/**
 * What a results table is made of, as the cache answers it and the window shows it: a row per
 * molecule or batch, a column per readout definition of a protocol, each cell the aggregate the
 * readout index keeps (see src-main/store/readout-index.ts).
 */
export type ResultsLevel = 'molecule' | 'batch'

/** A column of a results table: one readout definition of one protocol. */
export interface ResultsColumn {
  protocolId: number
  definitionId: number
}

/** An aggregate as a results table shows it (the index's form: see readout-index.ts). */
export interface ResultsCell {
  kind: 'number' | 'date' | 'boolean' | 'text' | 'empty'
  /** In the definition's unit (a date: epoch ms). */
  number: number | null
  modifier: string | null
  /** The value as given, for text and for showing. */
  text: string | null
  n: number
  source: 'vault' | 'computed'
  /** Recomputed with corrections still waiting in the outbox (an outlier marked offline). */
  pending?: true
}

export interface ResultsRow {
  /** The molecule or batch. */
  subjectId: number
  moleculeId: number | null
  name: string | null
  cells: (ResultsCell | null)[]
}

export interface ResultsPage {
  total: number
  rows: ResultsRow[]
}
