import type { SimModule } from './core/module.ts'
import { apiExecutionsModule } from './resources/api-executions.ts'
import { batchesModule } from './resources/batches/module.ts'
import { collectionsModule } from './resources/collections.ts'
import { dataSetsModule } from './resources/data-sets.ts'
import { domainModules } from './resources/domain/index.ts'
import { exportsModule } from './resources/exports.ts'
import { fieldsModule } from './resources/fields.ts'
import { importParsersModule } from './resources/import-parsers.ts'
import { mappingTemplatesModule } from './resources/mapping-templates.ts'
import { moleculesModule } from './resources/molecules/module.ts'
import { projectsModule } from './resources/projects.ts'
import { registrationModule } from './resources/registration.ts'
import { savedSearchesModule } from './resources/saved-searches.ts'
import { usersModule } from './resources/users.ts'
import { vaultsModule } from './resources/vaults.ts'

/**
 * Every resource family, in the order their tables are created and their seeds run: fields
 * before molecules (field values), molecules before registration (numbering) and before the
 * domain modules (which hang assay data on the seeded batches).
 */
export const simModules: readonly SimModule[] = [
  vaultsModule,
  fieldsModule,
  moleculesModule,
  registrationModule,
  batchesModule,
  collectionsModule,
  projectsModule,
  usersModule,
  dataSetsModule,
  apiExecutionsModule,
  exportsModule,
  mappingTemplatesModule,
  importParsersModule,
  savedSearchesModule,
  ...domainModules,
]
