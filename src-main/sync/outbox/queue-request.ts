import { z } from 'zod'
import { collectionAddition, newCollection } from './payloads/collections.ts'
import { entryEdit, newEntry, statusChange } from './payloads/eln-entries.ts'
import { importSettings } from './payloads/imports.ts'
import { newSample, sampleCorrection } from './payloads/inventory-samples.ts'
import { newPlate, plateCorrection } from './payloads/plates.ts'
import { readoutCorrection } from './payloads/readout-rows.ts'
import { batchCorrection, moleculeCorrection } from './payloads/registry-records.ts'
import { recordRef } from './payloads/common.ts'

/** Where a queued item goes: a saved connection and one of its vaults. */
const destination = {
  connectionId: z.string().min(1),
  vaultId: z.int().positive(),
}

/** A local path of a file to queue (in Electron: `window.vaultDesk.pathForFile(file)`). */
const localFile = z.string().min(1, 'give the path of the file')

/**
 * The modified_at of the record when editing began; without it, the outbox takes the one of the
 * record's earlier queued edits or of the cached copy.
 */
const baseModifiedAt = z.string().min(1).nullable().optional()

/** A file dropped onto a readout row goes to the row's run (the spec allows no files on rows). */
const attachTarget = z
  .object({
    kind: z.enum(['molecule', 'run', 'protocol', 'eln_entry', 'readout_row']),
    ref: recordRef,
  })
  .strict()

/** An ELN body block; a file is given by its local path and is uploaded first. */
const appendBlock = z.union([
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('link'), url: z.string(), label: z.string().optional() }).strict(),
  z.object({ type: z.literal('file'), file: recordRef }).strict(),
  z.object({ type: z.literal('file'), path: localFile }).strict(),
])

/** A change queued as is: its payload is the operation's own (checked by its schema). */
const change = <N extends string, P extends z.ZodType>(operation: N, payload: P) =>
  z.object({ ...destination, operation: z.literal(operation), payload }).strict()

/** An edit of a record: with the modified_at seen when editing began. */
const edit = <N extends string, P extends z.ZodType>(operation: N, payload: P) =>
  z.object({ ...destination, operation: z.literal(operation), payload, baseModifiedAt }).strict()

/**
 * Everything the UI and the command line can queue, each payload by its operation's own schema
 * (`operations/*.ts`), which names the member at fault.
 */
export const queueRequest = z.discriminatedUnion('operation', [
  z
    .object({
      ...destination,
      operation: z.literal('file.attach'),
      file: localFile,
      target: attachTarget,
    })
    .strict(),
  z
    .object({
      ...destination,
      operation: z.literal('slurp.create'),
      file: localFile,
      payload: importSettings,
    })
    .strict(),
  change('eln.create', newEntry),
  edit('eln.update', entryEdit),
  z
    .object({
      ...destination,
      operation: z.literal('eln.append'),
      entry: recordRef,
      body: z.array(appendBlock).min(1, 'append at least one block'),
    })
    .strict(),
  change('eln.status', statusChange),
  edit('readout.update', readoutCorrection),
  edit('molecule.update', moleculeCorrection),
  edit('batch.update', batchCorrection),
  change('collection.create', newCollection),
  change('collection.add', collectionAddition),
  change('plate.create', newPlate),
  edit('plate.update', plateCorrection),
  change('sample.create', newSample),
  edit('sample.update', sampleCorrection),
])

export type QueueRequest = z.infer<typeof queueRequest>
