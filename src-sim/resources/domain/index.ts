import type { SimModule } from '../../core/module.ts'
import { batchMoveJobsModule } from './batch-move-jobs.ts'
import { controlLayoutsModule } from './control-layouts.ts'
import { domainSeedModule } from './demo-seed.ts'
import { deepLearningModule } from './deep-learning.ts'
import { doseResponseModule } from './dose-response.ts'
import { elnEntriesModule } from './eln-entries.ts'
import { filesModule } from './files.ts'
import { inventoryLocationsModule } from './inventory-locations.ts'
import { inventorySamplesModule } from './inventory-samples.ts'
import { platesModule } from './plates.ts'
import { plotsModule } from './plots.ts'
import { protocolDataModule } from './protocol-data.ts'
import { protocolsModule } from './protocols.ts'
import { readoutRowsModule } from './readout-rows.ts'
import { runsModule } from './runs.ts'
import { slurpsModule } from './slurps.ts'
import { vaultStatusModule } from './vault-status.ts'

/**
 * The assay, notebook and inventory half of the simulator (owned by the sim-domain developer).
 * Every module listed here is mounted after the core's own modules; see src-sim/CORE.md.
 */
export const domainModules: readonly SimModule[] = [
  protocolsModule,
  runsModule,
  readoutRowsModule,
  protocolDataModule,
  doseResponseModule,
  plotsModule,
  platesModule,
  controlLayoutsModule,
  inventoryLocationsModule,
  inventorySamplesModule,
  filesModule,
  elnEntriesModule,
  slurpsModule,
  batchMoveJobsModule,
  vaultStatusModule,
  deepLearningModule,
  domainSeedModule,
]
