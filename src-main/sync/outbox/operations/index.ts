import { collectionAdd, collectionCreate } from './collections.ts'
import { curveUpdate } from './dose-response.ts'
import { elnAppend, elnCreate, elnStatus, elnUpdate } from './eln-entries.ts'
import { fileAttach } from './files.ts'
import { slurpCreate } from './imports.ts'
import { sampleCreate, sampleUpdate } from './inventory-samples.ts'
import { stored } from './operation.ts'
import { plateCreate, plateUpdate } from './plates.ts'
import { readoutUpdate } from './readout-rows.ts'
import { batchCreate, moleculeCreate } from './registrations.ts'
import { batchUpdate, moleculeUpdate } from './registry-records.ts'
import { searchCreate } from './saved-searches.ts'

/**
 * How each operation is sent, by name (`operationDeclarations` in common declares what it is);
 * each checks its own payload where it is defined.
 */
export const operations = stored({
  'file.attach': fileAttach,
  'slurp.create': slurpCreate,
  'eln.create': elnCreate,
  'eln.update': elnUpdate,
  'eln.append': elnAppend,
  'eln.status': elnStatus,
  'readout.update': readoutUpdate,
  'molecule.update': moleculeUpdate,
  'batch.update': batchUpdate,
  'collection.create': collectionCreate,
  'collection.add': collectionAdd,
  'plate.create': plateCreate,
  'plate.update': plateUpdate,
  'sample.create': sampleCreate,
  'sample.update': sampleUpdate,
  'curve.update': curveUpdate,
  'molecule.create': moleculeCreate,
  'batch.create': batchCreate,
  'search.create': searchCreate,
})
