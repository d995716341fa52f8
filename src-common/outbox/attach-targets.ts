/**
 * What a file can be attached to. A person may drop a file on a molecule, run, protocol, notebook
 * entry or readout row; the API takes files on the first four only (`resource_class`), so a
 * readout row's file goes to the row's run, and shows on the run's page.
 */
import type { OutboxRecordKind } from './record-ref.ts'

/** Where a person may attach a file, as `file.attach` requests and `vault-desk upload --to` name it. */
export const attachTargets = ['molecule', 'run', 'protocol', 'eln_entry', 'readout_row'] as const
export type AttachTarget = (typeof attachTargets)[number]

/** What the API attaches files to: a queued upload's target, once a readout row became its run. */
export const fileTargets = [
  'molecule',
  'run',
  'protocol',
  'eln_entry',
] as const satisfies readonly AttachTarget[]
export type FileTarget = (typeof fileTargets)[number]

/** The cached kind of the record a target names. */
export const attachTargetKinds = {
  molecule: 'molecules',
  run: 'runs',
  protocol: 'protocols',
  eln_entry: 'eln_entries',
  readout_row: 'readout_rows',
} as const satisfies Record<AttachTarget, OutboxRecordKind>

/** The cached kind whose page lists the files attached to a target (a readout row's: its run). */
export const filesShownOn = {
  molecule: 'molecules',
  run: 'runs',
  protocol: 'protocols',
  eln_entry: 'eln_entries',
  readout_row: 'runs',
} as const satisfies Record<AttachTarget, OutboxRecordKind>

/** The target that names a record of this cached kind, or null where files cannot be dropped. */
export function attachTargetOf(kind: string): AttachTarget | null {
  return attachTargets.find((target) => attachTargetKinds[target] === kind) ?? null
}

/** The target the API attaches files of a record of this kind to, or null (readout rows too). */
export function fileTargetOf(kind: string): FileTarget | null {
  return fileTargets.find((target) => attachTargetKinds[target] === kind) ?? null
}

export function isAttachTarget(value: unknown): value is AttachTarget {
  return (attachTargets as readonly unknown[]).includes(value)
}
