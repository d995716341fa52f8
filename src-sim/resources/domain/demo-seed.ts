import type { SimModule } from '../../core/module.ts'
import { seedAssays } from './seed-assays.ts'
import { seedImportTemplates } from './seed-imports.ts'
import { seedInventory } from './seed-inventory.ts'
import { seedNotebook } from './seed-notebook.ts'
import { seedProtocolFields } from './seed-protocol-fields.ts'

/**
 * The domain part of the seeds, after the core's molecules and batches: protocol fields in every
 * seed; for `demo` also assays, inventory, notebook and import templates, all drawn from the
 * seed's PRNG so that every run builds the same vault.
 */
export const domainSeedModule: SimModule = {
  name: 'domain seed',
  seed(seed) {
    seedProtocolFields(seed)
    if (seed.kind !== 'demo') return
    seed.db.transaction(() => {
      const assays = seedAssays(seed)
      seedInventory(seed)
      seedNotebook(seed, assays)
      seedImportTemplates(seed, assays)
    })()
  },
}
