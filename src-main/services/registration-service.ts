/**
 * Registering a compound offline: what a vault asks for (its form, read from the cache), the
 * checks a request must pass before anything is queued (each problem naming its member), and the
 * outbox items that carry it out: `POST /molecules` (with a batch depending on it) in vaults
 * without a registration system, a new batch with its molecule in registration vaults.
 */
import type {
  FieldValueText,
  RegistrationField,
  RegistrationFieldType,
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  RegistrationResult,
  StructureText,
} from '../../src-common/registration/form.ts'
import {
  newBatch,
  type NewBatch,
  type NewMolecule,
} from '../../src-common/outbox/payloads/registry-records.ts'
import { isObject, toId, toText } from '../../src-common/values.ts'
import { AppError } from '../shared/app-error.ts'
import { isMolfile } from '../chem/structure-query.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import type { Outbox } from '../sync/outbox/outbox.ts'
import type { ChemService } from './chem-service.ts'
import type { ConnectionRuntimes } from './connection-runtimes.ts'

/**
 * Salts and solvents offered when the cache knows none (the vault also takes two-letter salt
 * codes): the counterions and crystallisation solvents of most registered drug substances.
 */
const usualSalts = [
  'hydrochloride',
  'hydrobromide',
  'trifluoroacetate',
  'sodium',
  'potassium',
  'mesylate',
  'tosylate',
  'sulfate',
  'formate',
  'acetate',
  'maleate',
  'citrate',
]
const usualSolvents = [
  'water',
  'methanol',
  'ethanol',
  'dimethyl sulfoxide',
  'ethyl acetate',
  'dichloromethane',
]

/** Longer structures are refused before a worker reads them (a molfile of a protein is not one). */
const maximumStructureLength = 1_000_000

const fieldTypes: readonly RegistrationFieldType[] = ['Text', 'Number', 'Date', 'Pick List']

export interface RegistrationServiceOptions {
  runtimes: ConnectionRuntimes
  outbox: Outbox
  /** Reads structures in a chemistry worker. */
  chem: Pick<ChemService, 'molblocks'>
}

export class RegistrationService {
  readonly #options: RegistrationServiceOptions

  constructor(options: RegistrationServiceOptions) {
    this.#options = options
  }

  /** What registering in a vault asks for, from the cache. */
  form(connectionId: string, vaultId: number): RegistrationForm {
    const cache = this.#cache(connectionId)
    const all = (kind: string) => cache.list(kind, vaultId, { limit: 1000 }).records
    const projects = all('projects').flatMap((project) => {
      const id = toId(project.id)
      return id === null ? [] : [{ id, name: toText(project.name) ?? `Project ${id}` }]
    })
    const fields = all('fields')
    if (projects.length === 0 && fields.length === 0) {
      throw new AppError(
        'not_found',
        `Vault ${vaultId} has no projects or field definitions in the cache of this connection: sync it first.`,
      )
    }
    const choices = this.#pickLists(cache, vaultId)
    // In the vault's order (the order it defined them in), as its own forms show them.
    const fieldsOf = (type: string) =>
      fields
        .filter((field) => field.type === type)
        .sort((a, b) => (toId(a.id) ?? 0) - (toId(b.id) ?? 0))
        .flatMap((field): RegistrationField[] => {
          const id = toId(field.id)
          const name = toText(field.name)
          if (id === null || name === null) return []
          const dataType = toText(field.data_type_name)
          const kind = fieldTypes.find((known) => known === dataType) ?? 'Other'
          return [
            {
              id,
              name,
              type: kind,
              required:
                field.required_group_number !== null && field.required_group_number !== undefined,
              choices: kind === 'Pick List' ? (choices.get(id) ?? null) : null,
              unique: field.unique_value === true || field.unique === true,
            },
          ]
        })
    const system = all('registration_systems')[0]
    const knownSalts = cache
      .distinct('batches', vaultId, 'salt_name')
      .flatMap(({ value }) => (typeof value === 'string' && value.trim() ? [value] : []))
    return {
      vaultKind: system ? 'registration' : 'plain',
      registrationSystem: system
        ? {
            name: toText(system.name) ?? 'Registration system',
            prefix: toText(system.next_identifier) ?? toText(system.prefix),
          }
        : null,
      projects,
      moleculeFields: fieldsOf('MoleculeFieldDefinition'),
      // The service writes batch fields in registration vaults only (batch create body).
      batchFields: system ? fieldsOf('BatchFieldDefinition') : [],
      salts: knownSalts.length > 0 ? knownSalts : usualSalts,
      solvents: usualSolvents,
    }
  }

  /**
   * Checks a registration against the vault's form and queues it; nothing is queued while any
   * problem remains.
   */
  async queue(request: RegistrationRequest): Promise<RegistrationResult> {
    const { connectionId, vaultId } = request
    const form = this.form(connectionId, vaultId)
    const problems = await this.#problems(request, form)
    if (problems.length > 0) return { ok: false, problems }
    const outbox = this.#options.outbox
    const destination = { connectionId, vaultId }
    const batch = request.batch && batchMembers(request, form)
    if (form.vaultKind === 'registration' || request.duplicate.kind === 'existing') {
      const molecule: NewBatch['molecule'] =
        request.duplicate.kind === 'existing'
          ? { id: request.duplicate.moleculeId }
          : {
              [request.structure.format]: request.structure.text,
              duplicate_resolution: request.duplicate.kind === 'new' ? 'new' : 'prompt',
              ...(request.name?.trim() ? { name: request.name.trim() } : {}),
            }
      const items = await outbox.queue({
        ...destination,
        operation: 'batch.create',
        payload: { ...(batch ?? { projects: request.projects }), molecule },
      })
      return { ok: true, items: items.map((item) => item.id) }
    }
    const udfs = fieldValues(request.moleculeFields, form.moleculeFields)
    const molecule: NewMolecule = {
      name: request.name!.trim(),
      [request.structure.format]: request.structure.text,
      ...(request.description ? { description: request.description } : {}),
      ...(request.synonyms?.length ? { synonyms: request.synonyms } : {}),
      ...(Object.keys(udfs).length > 0 ? { udfs } : {}),
      projects: request.projects,
    }
    if (batch) {
      // Checked before the molecule is queued, so that a pair is queued whole or not at all.
      const checked = newBatch.safeParse({ ...batch, molecule: { item: 1 } })
      if (!checked.success) {
        return { ok: false, problems: [{ member: 'batch', message: checked.error.message }] }
      }
    }
    const [created] = await outbox.queue({
      ...destination,
      operation: 'molecule.create',
      payload: molecule,
    })
    if (!batch) return { ok: true, items: [created!.id] }
    try {
      const [batchItem] = await outbox.queue({
        ...destination,
        operation: 'batch.create',
        payload: { ...batch, molecule: { item: created!.id } },
      })
      return { ok: true, items: [created!.id, batchItem!.id] }
    } catch (error) {
      await outbox.discard(created!.id)
      throw error
    }
  }

  async #problems(
    request: RegistrationRequest,
    form: RegistrationForm,
  ): Promise<RegistrationProblem[]> {
    const problems: RegistrationProblem[] = []
    const problem = (member: string, message: string) => problems.push({ member, message })
    const cache = this.#cache(request.connectionId)
    const vaultId = request.vaultId
    const existing = request.duplicate.kind === 'existing'

    if (!existing) {
      const structureProblem = await this.#structureProblem(request.structure)
      if (structureProblem) problem('structure', structureProblem)
    }

    const name = request.name?.trim() ?? ''
    if (form.vaultKind === 'plain' && !existing && name === '') {
      problem('name', 'is required: a vault without a registration system names no molecules')
    } else if (name !== '' && !existing) {
      const holder = this.#moleculeNamed(request.connectionId, vaultId, name)
      if (holder !== null) problem('name', `"${name}" is already the name of ${holder}`)
    }

    if (request.projects.length === 0) problem('projects', 'choose at least one project')
    const known = new Set(form.projects.map((project) => project.id))
    for (const id of request.projects) {
      if (!known.has(id)) {
        problem(
          'projects',
          `project ${id} is not a project of this vault that you can reach (known: ${form.projects.map((project) => `${project.id} ${project.name}`).join(', ') || 'none'})`,
        )
      }
    }

    if (existing) {
      const { moleculeId } = request.duplicate as { moleculeId: number }
      if (!cache.get('molecules', vaultId, moleculeId)) {
        problem('duplicate.moleculeId', `molecule ${moleculeId} is not in this vault's cache`)
      }
    }

    const moleculeFieldsGiven = Object.keys(request.moleculeFields).length > 0
    // A registration vault's new batch carries only the structure of its molecule.
    const moleculeOnly = {
      description: request.description?.trim() ? request.description : undefined,
      synonyms: request.synonyms?.length ? request.synonyms : undefined,
    }
    for (const [member, value] of Object.entries(moleculeOnly)) {
      if (value === undefined) continue
      if (form.vaultKind === 'registration' && !existing) {
        problem(
          member,
          'cannot be set when registering in this vault: edit the molecule once it is registered',
        )
      } else if (existing) {
        problem(member, 'belongs to the existing molecule: edit it instead')
      }
    }
    if (form.vaultKind === 'registration' && moleculeFieldsGiven) {
      problem(
        'moleculeFields',
        'cannot be set when registering in a vault with a registration system (its new batch carries only the structure): edit the molecule once it is registered',
      )
    } else if (existing && moleculeFieldsGiven) {
      problem('moleculeFields', 'belong to the existing molecule: edit it instead')
    } else {
      checkFields(request.moleculeFields, form.moleculeFields, 'moleculeFields', {
        required: false,
        problem,
        usedBy: (field, value) => this.#holderOf(cache, vaultId, 'molecules', field, value),
      })
    }

    const batch = request.batch
    if (!batch && form.vaultKind === 'registration') {
      problem('batch', 'is required: a registration vault creates a molecule with its first batch')
    }
    if (batch || form.vaultKind === 'registration') {
      const batchFieldsGiven = Object.values(batch?.fields ?? {}).some((value) => !isBlank(value))
      if (form.vaultKind === 'plain' && batchFieldsGiven) {
        problem('batch.fields', 'can only be set in a vault with a registration system')
      } else {
        checkFields(batch?.fields ?? {}, form.batchFields, 'batch.fields', {
          required: form.vaultKind === 'registration',
          problem,
          usedBy: (field, value) => this.#holderOf(cache, vaultId, 'batches', field, value),
        })
      }
      if (batch?.stoichiometry && form.vaultKind === 'plain') {
        problem('batch.stoichiometry', 'can only be set in a vault with a registration system')
      }
      for (const [member, value] of Object.entries(batch?.stoichiometry ?? {})) {
        if (!Number.isInteger(value) || value < 0) {
          problem(
            `batch.stoichiometry.${member}`,
            `must be a whole number of 0 or more, got ${value}`,
          )
        }
      }
      if (batch?.name !== undefined && batch.name.trim() === '') {
        problem('batch.name', 'is empty: leave it out to let the vault name the batch')
      }
    }
    return problems
  }

  /** Why the structure cannot be registered, or null when a chemistry worker reads it. */
  async #structureProblem({ format, text }: StructureText): Promise<string | null> {
    if (text.trim() === '') return 'is empty: draw, paste or type a structure'
    if (format === 'molfile' && !isMolfile(text)) {
      return 'was given as a molfile, but has no molfile counts line (V2000 or V3000)'
    }
    if (format !== 'molfile' && isMolfile(text)) {
      return `was given as ${format === 'smiles' ? 'SMILES' : 'CXSMILES'}, but is a molfile`
    }
    if (text.length > maximumStructureLength) {
      return `is longer than ${maximumStructureLength} characters`
    }
    const [read] = await this.#options.chem.molblocks([text])
    if (read && 'problem' in read) return `cannot be read: ${read.problem}`
    if (read && 'molblock' in read && atomCount(read.molblock) === 0) {
      return 'has no atoms'
    }
    return null
  }

  /** The molecule (cached or queued) that already has this name, in words, or null. */
  #moleculeNamed(connectionId: string, vaultId: number, name: string): string | null {
    const lower = name.toLowerCase()
    const cache = this.#cache(connectionId)
    const cached = cache.list('molecules', vaultId, { fields: { name }, limit: 1 }).records[0]
    if (cached) return `molecule ${String(cached.id)}`
    const pending = this.#options.outbox
      .pendingList(connectionId, vaultId, 'molecules')
      .find((record) => toText(record.record.name)?.toLowerCase() === lower)
    if (!pending) return null
    return pending.id !== null
      ? `molecule ${pending.id}`
      : `the molecule queued by item ${pending.createdBy ?? pending.itemIds[0]}`
  }

  /** The record of a kind already holding a unique field's value, in words, or null. */
  #holderOf(
    cache: VaultCache,
    vaultId: number,
    kind: 'molecules' | 'batches',
    field: string,
    value: string | number,
  ): string | null {
    const [record] = cache.list(kind, vaultId, {
      fields: { [field]: String(value) },
      limit: 1,
    }).records
    return record ? `${kind === 'molecules' ? 'molecule' : 'batch'} ${String(record.id)}` : null
  }

  /** Each pick list field's visible values, by field id, from the cache. */
  #pickLists(cache: VaultCache, vaultId: number): Map<number, string[]> {
    const lists = new Map<number, string[]>()
    for (const value of cache.list('pick_list_values', vaultId, { limit: 1000 }).records) {
      const fieldId = toId(isObject(value.field) ? value.field.id : value.field_id)
      const text = toText(value.value)
      if (fieldId === null || text === null || value.hidden === true) continue
      lists.set(fieldId, [...(lists.get(fieldId) ?? []), text])
    }
    return lists
  }

  #cache(connectionId: string): VaultCache {
    return this.#options.runtimes.get(connectionId).cache
  }
}

/** The atoms a molblock declares on its counts line (V2000), or null for V3000. */
function atomCount(molblock: string): number | null {
  const counts = molblock.split('\n')[3]
  if (!counts || !counts.includes('V2000')) return null
  return Number.parseInt(counts.slice(0, 3), 10)
}

interface FieldCheck {
  /** Whether the form's required fields must be given. */
  required: boolean
  problem: (member: string, message: string) => void
  /** The record already holding a unique field's value, in words, or null. */
  usedBy: (field: string, value: string | number) => string | null
}

/** Checks field values against their definitions, reporting each problem under `member`. */
function checkFields(
  values: Record<string, FieldValueText>,
  definitions: readonly RegistrationField[],
  member: string,
  check: FieldCheck,
): void {
  const byName = new Map(definitions.map((field) => [field.name, field]))
  for (const [name, value] of Object.entries(values)) {
    const field = byName.get(name)
    const label = `${member}.${name}`
    if (!field) {
      check.problem(
        label,
        `is not a field of this vault (known: ${definitions.map((known) => known.name).join(', ') || 'none'})`,
      )
      continue
    }
    if (value === null || isBlank(value)) continue
    const problem = valueProblem(field, value)
    if (problem) {
      check.problem(label, problem)
      continue
    }
    if (field.unique) {
      const holder = check.usedBy(name, typedValue(field, value))
      if (holder !== null)
        check.problem(label, `must be unique, and ${holder} already has "${value}"`)
    }
  }
  if (!check.required) return
  for (const field of definitions) {
    if (field.required && isBlank(values[field.name])) {
      check.problem(`${member}.${field.name}`, 'is required in this vault')
    }
  }
}

function isBlank(value: FieldValueText | undefined): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

function valueProblem(field: RegistrationField, value: string | number): string | null {
  switch (field.type) {
    case 'Number':
      return Number.isFinite(typeof value === 'number' ? value : Number(value.trim()))
        ? null
        : `must be a number, got "${value}"`
    case 'Date':
      return typeof value === 'string' && isIsoDate(value.trim())
        ? null
        : `must be a date as YYYY-MM-DD, got "${value}"`
    case 'Pick List':
      if (field.choices === null) return null
      return field.choices.includes(String(value))
        ? null
        : `must be one of ${field.choices.map((choice) => `"${choice}"`).join(', ')}, got "${value}"`
    default:
      return null
  }
}

/** A calendar date written as YYYY-MM-DD that exists (no 31 February). */
function isIsoDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  )
}

function typedValue(field: RegistrationField, value: string | number): string | number {
  if (field.type === 'Number') return typeof value === 'number' ? value : Number(value.trim())
  return typeof value === 'string' ? value.trim() : String(value)
}

/** The values to send: blanks left out, numbers as numbers, text trimmed. */
function fieldValues(
  values: Record<string, FieldValueText>,
  definitions: readonly RegistrationField[],
): Record<string, string | number> {
  const byName = new Map(definitions.map((field) => [field.name, field]))
  const written: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(values)) {
    const field = byName.get(name)
    if (!field || isBlank(value)) continue
    written[name] = typedValue(field, value!)
  }
  return written
}

/** The batch members of a request, as `batch.create` takes them (its molecule aside). */
function batchMembers(
  request: RegistrationRequest,
  form: RegistrationForm,
): Omit<NewBatch, 'molecule'> {
  const batch = request.batch!
  const fields = fieldValues(batch.fields, form.batchFields)
  return {
    ...(batch.name?.trim() ? { name: batch.name.trim() } : {}),
    projects: request.projects,
    ...(batch.saltName?.trim() ? { salt_name: batch.saltName.trim() } : {}),
    ...(batch.solventName?.trim()
      ? { solvent_of_crystallization_name: batch.solventName.trim() }
      : {}),
    ...(batch.stoichiometry
      ? {
          stoichiometry: {
            core_count: batch.stoichiometry.core,
            salt_count: batch.stoichiometry.salt,
            solvent_of_crystallization_count: batch.stoichiometry.solvent,
          },
        }
      : {}),
    ...(Object.keys(fields).length > 0 ? { batch_fields: fields } : {}),
  }
}
