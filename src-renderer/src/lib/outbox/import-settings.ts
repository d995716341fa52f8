/**
 * The choices of an import (slurp), as the import dialog edits them, and the payload the outbox
 * queues for them (docs/spec/gaps.md: project, mapping template, runs, autoreject, how ambiguous
 * and suspicious events are resolved, ignore_errors).
 */
import type { ImportSettings } from '../../../../src-common/outbox/payloads/imports.ts'
import { toId, isObject, toText } from '../../../../src-common/values.ts'

export const ambiguousChoices = [
  { value: 'none', label: 'Leave them for me to resolve in the vault' },
  { value: 'reject', label: 'Reject those records' },
  { value: 'new_molecule', label: 'Register a new molecule' },
  { value: 'new_batch', label: 'Add a new batch to the existing molecule' },
] as const satisfies readonly {
  value: NonNullable<ImportSettings['ambiguous_events_resolution']>
  label: string
}[]

export const suspiciousChoices = [
  { value: 'none', label: 'Leave them for me to resolve in the vault' },
  { value: 'reject', label: 'Reject those records' },
  { value: 'accept', label: 'Accept them as they are' },
] as const satisfies readonly {
  value: NonNullable<ImportSettings['suspicious_events_resolution']>
  label: string
}[]

export type AmbiguousChoice = (typeof ambiguousChoices)[number]['value']
export type SuspiciousChoice = (typeof suspiciousChoices)[number]['value']

export interface ImportChoices {
  /** A project id, or a project's name where the vault's projects are not cached. */
  project: number | string | null
  /** A cached mapping template's id; null lets the vault map the columns itself. */
  mappingTemplate: number | string | null
  runDate: string
  place: string
  person: string
  conditions: string
  ambiguous: AmbiguousChoice
  suspicious: SuspiciousChoice
  autoreject: boolean
  ignoreErrors: boolean
}

export function emptyChoices(project: number | null): ImportChoices {
  return {
    project,
    mappingTemplate: null,
    runDate: '',
    place: '',
    person: '',
    conditions: '',
    ambiguous: 'none',
    suspicious: 'none',
    autoreject: false,
    ignoreErrors: false,
  }
}

/** What the outbox queues for an import (its schema is in common). */
export type ImportPayload = ImportSettings

/** The payload, or why it cannot be queued yet. */
export function importPayload(
  choices: ImportChoices,
): { ok: true; payload: ImportPayload } | { ok: false; message: string } {
  const project =
    typeof choices.project === 'string' ? choices.project.trim() || null : choices.project
  if (project === null) return { ok: false, message: 'Choose the project to import into.' }
  if (choices.runDate !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(choices.runDate)) {
    return { ok: false, message: 'Give the run date as a date, such as 2026-07-24.' }
  }
  const run = Object.fromEntries(
    (
      [
        ['run_date', choices.runDate],
        ['place', choices.place],
        ['person', choices.person],
        ['conditions', choices.conditions],
      ] as const
    ).flatMap(([member, value]) => (value.trim() === '' ? [] : [[member, value.trim()]])),
  )
  return {
    ok: true,
    payload: {
      project,
      ...(choices.mappingTemplate !== null ? { mapping_template: choices.mappingTemplate } : {}),
      ...(Object.keys(run).length > 0 ? { runs: run } : {}),
      ...(choices.autoreject ? { autoreject: true } : {}),
      ...(choices.ambiguous !== 'none' ? { ambiguous_events_resolution: choices.ambiguous } : {}),
      ...(choices.suspicious !== 'none'
        ? { suspicious_events_resolution: choices.suspicious }
        : {}),
      ...(choices.ignoreErrors ? { ignore_errors: true } : {}),
    },
  }
}

/** The choices a queued import was made with (to correct one the vault refused). */
export function choicesOf(payload: Readonly<Record<string, unknown>>): ImportChoices {
  const run = Array.isArray(payload.runs) ? payload.runs[0] : payload.runs
  const runs = isObject(run) ? run : {}
  const template = payload.mapping_template
  const ambiguous = ambiguousChoices.find(
    (choice) => choice.value === payload.ambiguous_events_resolution,
  )
  const suspicious = suspiciousChoices.find(
    (choice) => choice.value === payload.suspicious_events_resolution,
  )
  return {
    project: toId(payload.project) ?? toText(payload.project),
    mappingTemplate:
      typeof template === 'number' || typeof template === 'string'
        ? (toId(template) ?? template)
        : null,
    runDate: toText(runs.run_date) ?? '',
    place: toText(runs.place) ?? '',
    person: toText(runs.person) ?? '',
    conditions: toText(runs.conditions) ?? '',
    ambiguous: ambiguous?.value ?? 'none',
    suspicious: suspicious?.value ?? 'none',
    autoreject: payload.autoreject === true,
    ignoreErrors: payload.ignore_errors === true,
  }
}
