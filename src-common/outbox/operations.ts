/**
 * Every operation the outbox can queue, declared once: what a person reads of it (label, summary,
 * icon), the record it changes or creates, how it is queued, and what of it may be corrected once
 * queued. Main's operations (`src-main/sync/outbox/operations/`) add how each is sent and looked
 * up; the window derives its labels, icons and editors from here. Pure data and functions of the
 * payload: no schema (the payloads' zod schemas are in `payloads/`, so the window need not load
 * zod for a label).
 */
import type { JsonObject } from '../values.ts'
import type { FileTarget } from './attach-targets.ts'
import type { CollectionAddition, NewCollection } from './payloads/collections.ts'
import type { SeriesConstraintEdit } from './payloads/dose-response.ts'
import type {
  ElnEntryAppend,
  ElnEntryEdit,
  ElnStatusChange,
  NewElnEntry,
} from './payloads/eln-entries.ts'
import type { FileAttachmentPayload } from './payloads/files.ts'
import type { ImportSettings } from './payloads/imports.ts'
import type { NewSample, SampleCorrection } from './payloads/inventory-samples.ts'
import type { NewPlate, PlateCorrection } from './payloads/plates.ts'
import type { ReadoutCorrection } from './payloads/readout-rows.ts'
import type { NewSavedSearch } from './payloads/saved-searches.ts'
import type {
  BatchCorrection,
  MoleculeCorrection,
  NewBatch,
  NewMolecule,
} from './payloads/registry-records.ts'
import type { OutboxRecordKind, RecordRef } from './record-ref.ts'
import { allows, type OutboxState } from './states.ts'

/** The window's icons an operation may show (names in `src-renderer/src/components/icons.ts`). */
export type OperationIcon =
  'file' | 'upload' | 'notebook' | 'flask' | 'molecule' | 'vial' | 'plate' | 'box' | 'outbox'

/** What a summary may name besides the payload: the item, its record and its file. */
export interface SummaryFacts {
  /** The item's own id. */
  id: number
  /** The server id of the record it changes or creates, once known. */
  recordId: number | null
  /** The item creating that record offline (the item itself for a create). */
  recordItem: number | null
  /** The name of the file that goes with it. */
  fileName: string | null
}

export interface OperationDeclaration<P = JsonObject> {
  /** The operation as a person reads it: "File upload". */
  readonly label: string
  readonly icon: OperationIcon
  /** The cached kind of the record it changes or creates. */
  readonly recordKind: OutboxRecordKind
  /** The record it changes, as its payload names it; absent where it creates one. */
  readonly changes?: (payload: P) => RecordRef
  /** For an upload: the record the file goes to. */
  readonly attachTarget?: (payload: P) => { kind: FileTarget; ref: RecordRef }
  /** A file goes with it, copied when queued: an upload, or the file an import reads. */
  readonly file: 'none' | 'upload' | 'import'
  /**
   * How it is queued (`queue-request.ts`): its payload as is (`change`); as an edit of a record,
   * with the modified_at seen when editing began (`edit`); or by a request of its own, which names
   * local files (`own`).
   */
  readonly request: 'change' | 'edit' | 'own'
  /**
   * The payload members a person may correct once it is queued (the others name what it changes
   * and stay as they are); null where it cannot be edited (discard it and queue it again).
   */
  readonly editable: readonly (keyof P & string)[] | null
  /** What it does, in one line: "Attach plate-7.csv to molecule 123". */
  summary(payload: P, facts: SummaryFacts): string
}

/** A declaration whose payload type is `P`, keeping how it is queued as a literal type. */
const declare =
  <P>() =>
  <const R extends OperationDeclaration['request']>(
    declaration: OperationDeclaration<P> & { readonly request: R },
  ) =>
    declaration

function recordName(facts: SummaryFacts, noun: string): string {
  if (facts.recordId !== null) return `${noun} ${facts.recordId}`
  return facts.recordItem !== null && facts.recordItem !== facts.id
    ? `the ${noun} of item ${facts.recordItem}`
    : `a new ${noun}`
}

function refName(ref: RecordRef, noun: string): string {
  return 'id' in ref ? `${noun} ${ref.id}` : `the ${noun} of item ${ref.item}`
}

const capitalized = (text: string) => text.replace(/^./, (first) => first.toUpperCase())

/** Every operation, by the name its items are stored under. */
export const operationDeclarations = {
  'file.attach': declare<FileAttachmentPayload>()({
    label: 'File upload',
    icon: 'file',
    recordKind: 'files',
    attachTarget: (payload) => payload.target,
    file: 'upload',
    request: 'own',
    // The snapshot that tells an upload in doubt apart is of its target: it stays where it is.
    editable: null,
    summary: ({ target }, { fileName }) =>
      `Attach ${fileName ?? 'a file'} to ${refName(target.ref, target.kind.replace('_', ' '))}`,
  }),
  'slurp.create': declare<ImportSettings>()({
    label: 'Data import',
    icon: 'upload',
    recordKind: 'slurps',
    file: 'import',
    request: 'own',
    editable: [
      'project',
      'mapping_template',
      'runs',
      'autoreject',
      'ambiguous_events_resolution',
      'suspicious_events_resolution',
      'ignore_errors',
    ],
    summary: (payload, { fileName }) =>
      `Import ${fileName ?? 'a file'} into project ${String(payload.project)}`,
  }),
  'eln.create': declare<NewElnEntry>()({
    label: 'New notebook entry',
    icon: 'notebook',
    recordKind: 'eln_entries',
    file: 'none',
    request: 'change',
    editable: ['title', 'project', 'eln_fields'],
    summary: (payload) => `Create the ELN entry "${payload.title}"`,
  }),
  'eln.update': declare<ElnEntryEdit>()({
    label: 'Notebook edit',
    icon: 'notebook',
    recordKind: 'eln_entries',
    changes: (payload) => payload.entry,
    file: 'none',
    request: 'edit',
    editable: ['title', 'eln_fields'],
    summary: (_payload, facts) => `Edit ${recordName(facts, 'ELN entry')}`,
  }),
  'eln.append': declare<ElnEntryAppend>()({
    label: 'Notebook addition',
    icon: 'notebook',
    recordKind: 'eln_entries',
    changes: (payload) => payload.entry,
    file: 'none',
    request: 'own',
    editable: ['body'],
    summary: (_payload, facts) => `Append to ${recordName(facts, 'ELN entry')}`,
  }),
  'eln.status': declare<ElnStatusChange>()({
    label: 'Notebook status change',
    icon: 'notebook',
    recordKind: 'eln_entries',
    changes: (payload) => payload.entry,
    file: 'none',
    request: 'change',
    editable: ['witness', 'reason'],
    summary: (payload, facts) =>
      `${capitalized(payload.status_action)} ${recordName(facts, 'ELN entry')}`,
  }),
  'readout.update': declare<ReadoutCorrection>()({
    label: 'Readout correction',
    icon: 'flask',
    recordKind: 'readout_rows',
    changes: (payload) => ({ id: payload.row }),
    file: 'none',
    request: 'edit',
    editable: ['readouts'],
    summary: (_payload, facts) => `Correct ${recordName(facts, 'readout row')}`,
  }),
  'molecule.update': declare<MoleculeCorrection>()({
    label: 'Molecule update',
    icon: 'molecule',
    recordKind: 'molecules',
    changes: (payload) => ({ id: payload.molecule }),
    file: 'none',
    request: 'edit',
    editable: ['changes'],
    summary: (_payload, facts) => `Update ${recordName(facts, 'molecule')}`,
  }),
  'batch.update': declare<BatchCorrection>()({
    label: 'Batch update',
    icon: 'vial',
    recordKind: 'batches',
    changes: (payload) => ({ id: payload.batch }),
    file: 'none',
    request: 'edit',
    editable: ['changes'],
    summary: (_payload, facts) => `Update ${recordName(facts, 'batch')}`,
  }),
  'collection.create': declare<NewCollection>()({
    label: 'New collection',
    icon: 'outbox',
    recordKind: 'collections',
    file: 'none',
    request: 'change',
    editable: ['name', 'molecules', 'class'],
    summary: (payload) => `Create the collection "${payload.name}"`,
  }),
  'collection.add': declare<CollectionAddition>()({
    label: 'Collection update',
    icon: 'outbox',
    recordKind: 'collections',
    changes: (payload) => payload.collection,
    file: 'none',
    request: 'change',
    editable: ['molecules'],
    summary: (_payload, facts) => `Add molecules to ${recordName(facts, 'collection')}`,
  }),
  'plate.create': declare<NewPlate>()({
    label: 'New plate',
    icon: 'plate',
    recordKind: 'plates',
    file: 'none',
    request: 'change',
    editable: ['name', 'projects', 'size', 'location', 'concentration', 'volume', 'wells'],
    summary: (payload) => `Create the plate "${payload.name}"`,
  }),
  'plate.update': declare<PlateCorrection>()({
    label: 'Plate update',
    icon: 'plate',
    recordKind: 'plates',
    changes: (payload) => payload.plate,
    file: 'none',
    request: 'edit',
    editable: ['changes'],
    summary: (_payload, facts) => `Update ${recordName(facts, 'plate')}`,
  }),
  'sample.create': declare<NewSample>()({
    label: 'New sample',
    icon: 'box',
    recordKind: 'inventory_samples',
    file: 'none',
    request: 'change',
    editable: ['batch_id', 'units', 'amount', 'note', 'location_id', 'position', 'fields'],
    summary: (payload) => `Create a sample of batch ${payload.batch_id}`,
  }),
  'sample.update': declare<SampleCorrection>()({
    label: 'Sample update',
    icon: 'box',
    recordKind: 'inventory_samples',
    changes: (payload) => payload.sample,
    file: 'none',
    request: 'edit',
    editable: ['changes', 'event'],
    summary: (_payload, facts) => `Update ${recordName(facts, 'inventory sample')}`,
  }),
  'curve.update': declare<SeriesConstraintEdit>()({
    label: 'Curve fit constraints',
    icon: 'flask',
    recordKind: 'dose_response_series',
    changes: (payload) => ({ id: payload.series }),
    file: 'none',
    request: 'edit',
    editable: ['fit_parameters'],
    summary: (payload, facts) => {
      const names = Object.keys(payload.fit_parameters)
      const what = names.length === 0 ? 'Clear the constraints' : `Constrain ${names.join(', ')}`
      return `${what} of ${recordName(facts, 'data series')}`
    },
  }),
  'molecule.create': declare<NewMolecule>()({
    label: 'New molecule',
    icon: 'molecule',
    recordKind: 'molecules',
    file: 'none',
    request: 'change',
    // The structure stays: it is how an attempt in doubt is found again.
    editable: ['name', 'description', 'synonyms', 'udfs', 'projects'],
    summary: (payload) => `Register the molecule "${payload.name}"`,
  }),
  'batch.create': declare<NewBatch>()({
    label: 'New batch',
    icon: 'vial',
    recordKind: 'batches',
    file: 'none',
    request: 'change',
    editable: [
      'name',
      'projects',
      'salt_name',
      'solvent_of_crystallization_name',
      'stoichiometry',
      'batch_fields',
    ],
    summary: ({ molecule }) => {
      if ('id' in molecule) return `Create a batch of molecule ${molecule.id}`
      if ('item' in molecule) return `Create a batch of the molecule of item ${molecule.item}`
      return molecule.duplicate_resolution === 'existing'
        ? 'Create a batch of the molecule with this structure'
        : 'Register a new structure with its first batch'
    },
  }),
  'search.create': declare<NewSavedSearch>()({
    label: 'New saved search',
    icon: 'outbox',
    recordKind: 'saved_searches',
    file: 'none',
    request: 'change',
    editable: ['name', 'projects', 'search_criteria'],
    summary: (payload) => `Save the search "${payload.name}"`,
  }),
}

type Declarations = typeof operationDeclarations

/** Every operation the outbox can queue, as stored in its database. */
export type OperationName = keyof Declarations

export const operationNames = Object.keys(operationDeclarations) as OperationName[]

/** The payload of an operation, as its schema (`payloads/`) reads it. */
export type PayloadOf<N extends OperationName> =
  Declarations[N] extends OperationDeclaration<infer P> ? P : never

/** Operations queued by their payload alone (`change`) or as an edit of a record (`edit`). */
export type PayloadRequestName = {
  [N in OperationName]: Declarations[N]['request'] extends 'own' ? never : N
}[OperationName]

/**
 * The declaration of an operation as the outbox holds it with the others: its payload is the
 * stored JSON, which the operation's schema checked when the item was queued or edited.
 */
export function declarationOf(name: OperationName): OperationDeclaration {
  return operationDeclarations[name] as unknown as OperationDeclaration
}

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operationDeclarations, name)
}

/**
 * What an item does, in one line. An item an older version stored in another shape is named by
 * its operation rather than failing the list it is in.
 */
export function summaryOf(
  item: { operation: OperationName; payload: JsonObject },
  facts: SummaryFacts,
): string {
  const declaration = declarationOf(item.operation)
  try {
    return declaration.summary(item.payload, facts)
  } catch {
    return declaration.label
  }
}

/** Whether the person may correct an item: its operation lets them, and its state does. */
export function isEditable(item: { operation: OperationName; state: OutboxState }): boolean {
  return declarationOf(item.operation).editable !== null && allows(item.state, 'edit')
}

/** The record an item changes, or that it creates (`creates`), as its payload names it. */
export function recordOf(
  name: OperationName,
  payload: JsonObject,
): { kind: OutboxRecordKind; ref: RecordRef } | { kind: OutboxRecordKind; creates: true } {
  const declaration = declarationOf(name)
  return declaration.changes
    ? { kind: declaration.recordKind, ref: declaration.changes(payload) }
    : { kind: declaration.recordKind, creates: true }
}
