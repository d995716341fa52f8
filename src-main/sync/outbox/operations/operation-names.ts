/** Every operation the outbox can queue, as stored in its database. */
export const operationNames = [
  'file.attach',
  'slurp.create',
  'eln.create',
  'eln.update',
  'eln.append',
  'eln.status',
  'readout.update',
  'molecule.update',
  'batch.update',
  'collection.create',
  'collection.add',
  'plate.create',
  'plate.update',
  'sample.create',
  'sample.update',
] as const

export type OperationName = (typeof operationNames)[number]
