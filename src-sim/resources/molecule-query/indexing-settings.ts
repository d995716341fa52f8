/** When the simulator identifies bulk-seeded molecules in the background (see search-index.ts). */
export interface IndexingSettings {
  /** How many molecules must lack search data for the background pass to run at all. */
  minimumMolecules: number
  /** How long the API must have had no request before the pass takes its next chunk. */
  idleMs: number
}
