import { browseKind, isBrowseKind } from './browse-kinds.ts'

/** Names of the cached kinds the browser has no pages for (they still show in sync progress). */
const otherKinds: Record<string, string> = {
  vaults: 'Vaults',
  projects: 'Projects',
  data_sets: 'Data sets',
  fields: 'Field definitions',
  pick_list_values: 'Pick list values',
  users: 'Users',
  collections: 'Collections',
  control_layouts: 'Control layouts',
  saved_searches: 'Saved searches',
  mapping_templates: 'Mapping templates',
  import_parsers: 'Import parsers',
  registration_forms: 'Registration forms',
  registration_systems: 'Registration systems',
  dose_response_calculations: 'Dose-response calculations',
  dose_response_series: 'Dose-response curves',
  vault_status: 'Vault status',
  slurps: 'Imports',
  batch_move_jobs: 'Batch moves',
}

/** "Readout rows" for `readout_rows`; a kind this version does not know is named from its key. */
export function kindLabel(kind: string): string {
  if (isBrowseKind(kind)) return browseKind(kind).plural
  const known = otherKinds[kind]
  if (known) return known
  const words = kind.replaceAll('_', ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}
