import { collectionAdd, collectionCreate } from './collections.ts'
import { elnAppend, elnCreate, elnStatus, elnUpdate } from './eln-entries.ts'
import { fileAttach } from './files.ts'
import { slurpCreate } from './imports.ts'
import { sampleCreate, sampleUpdate } from './inventory-samples.ts'
import { stored, type StoredOperation } from './operation.ts'
import type { OperationName } from './operation-names.ts'
import { plateCreate, plateUpdate } from './plates.ts'
import { readoutUpdate } from './readout-rows.ts'
import { batchUpdate, moleculeUpdate } from './registry-records.ts'

/** Every operation by name; each checks its own payload type where it is defined. */
export const operations: Readonly<Record<OperationName, StoredOperation>> = {
  'file.attach': stored(fileAttach),
  'slurp.create': stored(slurpCreate),
  'eln.create': stored(elnCreate),
  'eln.update': stored(elnUpdate),
  'eln.append': stored(elnAppend),
  'eln.status': stored(elnStatus),
  'readout.update': stored(readoutUpdate),
  'molecule.update': stored(moleculeUpdate),
  'batch.update': stored(batchUpdate),
  'collection.create': stored(collectionCreate),
  'collection.add': stored(collectionAdd),
  'plate.create': stored(plateCreate),
  'plate.update': stored(plateUpdate),
  'sample.create': stored(sampleCreate),
  'sample.update': stored(sampleUpdate),
}
