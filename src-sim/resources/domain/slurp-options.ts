import type { VaultAccess } from '../../core/sim-core.ts'
import { invalid } from '../../core/http-error.ts'
import { Params } from '../../core/params.ts'
import { projectItem, resolveProject } from './project-lists.ts'
import { parseRunDay } from './run-days.ts'

/**
 * The `json` part of a slurp upload (docs/spec/gaps.md): project, mapping template (id, name, or an
 * inline object with header_mappings), runs, autoreject, the resolutions of ambiguous and
 * suspicious events, and ignore_errors. Read once at upload; problems are 422s naming
 * `json.<member>`.
 */

const AMBIGUOUS_RESOLUTIONS = ['none', 'reject', 'new_molecule', 'new_batch'] as const
const SUSPICIOUS_RESOLUTIONS = ['none', 'reject', 'accept'] as const

/** What a column fills. Structure columns are also found by a SMILES or Structure header. */
export type ColumnRole =
  | { role: 'structure' }
  | { role: 'molecule name' }
  | { role: 'synonyms' }
  | { role: 'batch name' }
  | { role: 'molecule field'; name: string }
  | { role: 'batch field'; name: string }
  | { role: 'readout'; definitionId: number }

export interface ColumnMapping {
  header: string
  target: ColumnRole
}

export interface RunPlan {
  runDate: number
  place: string
  person: string
  conditions: string
}

export interface SlurpOptions {
  projectId: number
  /** How the template was named, shown on the slurp. */
  template: { id: number | null; name: string }
  columns: ColumnMapping[]
  /** The protocol the mapped readouts belong to, if any. */
  protocolId: number | null
  runs: RunPlan[]
  autoreject: boolean
  ambiguousResolution: (typeof AMBIGUOUS_RESOLUTIONS)[number]
  suspiciousResolution: (typeof SUSPICIOUS_RESOLUTIONS)[number]
  ignoreErrors: boolean
}

interface StoredMapping {
  header?: { name?: unknown }
  definition?: { id?: unknown; type?: unknown; name?: unknown }
}

export function readSlurpOptions(
  access: VaultAccess,
  jsonText: string,
  nowSeconds: number,
): SlurpOptions {
  let body: unknown
  try {
    body = JSON.parse(jsonText)
  } catch (error) {
    throw invalid('json', `must be a JSON object: ${(error as Error).message}`)
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('json', 'must be a JSON object')
  }
  const params = new Params(body as Record<string, unknown>, 'body', access.user.timeZone, 'json.')
  if (!params.has('project'))
    throw invalid('json.project', 'is required: give a project id or name')
  const projectId = resolveProject(
    access,
    projectItem(params.raw('project'), 'json.project'),
    'json.project',
  )
  const { template, mappings } = readTemplate(access, params)
  const columns = mappings.flatMap((mapping, index) =>
    readMapping(access, mapping, `json.mapping_template.header_mappings[${index}]`),
  )
  const protocolIds = new Set(
    columns.flatMap((column) =>
      column.target.role === 'readout'
        ? [protocolOfDefinition(access, column.target.definitionId)]
        : [],
    ),
  )
  if (protocolIds.size > 1) {
    throw invalid(
      'json.mapping_template',
      'maps readouts of more than one protocol; one import fills one protocol',
    )
  }
  const protocolId = protocolIds.size === 1 ? [...protocolIds][0]! : null
  if (protocolId !== null) {
    const shared = access.db
      .prepare(`SELECT 1 FROM protocol_projects WHERE protocol_id = ? AND project_id = ?`)
      .get(protocolId, projectId)
    if (!shared)
      throw invalid(
        'json.project',
        `is not a project of protocol ${protocolId}, whose readouts the template maps`,
      )
  }
  const runs = readRuns(params, nowSeconds)
  const options: SlurpOptions = {
    projectId,
    template,
    columns,
    protocolId,
    runs,
    autoreject: params.boolean('autoreject', false),
    ambiguousResolution: params.oneOf('ambiguous_events_resolution', AMBIGUOUS_RESOLUTIONS, 'none'),
    suspiciousResolution: params.oneOf(
      'suspicious_events_resolution',
      SUSPICIOUS_RESOLUTIONS,
      'none',
    ),
    ignoreErrors: params.boolean('ignore_errors', false),
  }
  params.rejectUnknown()
  return options
}

function readTemplate(
  access: VaultAccess,
  params: Params,
): { template: SlurpOptions['template']; mappings: StoredMapping[] } {
  const raw = params.raw('mapping_template')
  if (raw === undefined || raw === null)
    throw invalid(
      'json.mapping_template',
      'is required: give a template id, name, or {header_mappings}',
    )
  if (typeof raw === 'object' && !Array.isArray(raw)) {
    const inline = params.object('mapping_template')!
    const items = inline.objects('header_mappings')
    if (!items)
      throw invalid('json.mapping_template.header_mappings', 'is required for an inline template')
    const name = inline.string('name') ?? 'inline'
    inline.rejectUnknown()
    return {
      template: { id: null, name },
      mappings: items.map((item) => item.toJSON() as StoredMapping),
    }
  }
  const item = projectItem(raw, 'json.mapping_template')
  const row = (
    typeof item === 'number'
      ? access.db
          .prepare(
            `SELECT id, name, header_mappings FROM mapping_templates WHERE id = ? AND vault_id = ?`,
          )
          .get(item, access.vault.id)
      : access.db
          .prepare(
            `SELECT id, name, header_mappings FROM mapping_templates WHERE name = ? AND vault_id = ?`,
          )
          .get(item, access.vault.id)
  ) as { id: number; name: string; header_mappings: string } | undefined
  if (!row)
    throw invalid(
      'json.mapping_template',
      `${JSON.stringify(raw)} is not a mapping template of this vault`,
    )
  return {
    template: { id: row.id, name: row.name },
    mappings: JSON.parse(row.header_mappings) as StoredMapping[],
  }
}

const INTERNAL_ROLES: Record<string, ColumnRole['role']> = {
  'InternalFieldDefinition::MoleculeName': 'molecule name',
  'InternalFieldDefinition::MoleculeSynonyms': 'synonyms',
  'InternalFieldDefinition::BatchName': 'batch name',
  'InternalFieldDefinition::Structure': 'structure',
}

/** A mapping whose definition the simulator does not import (salt, owner) maps nothing. */
function readMapping(access: VaultAccess, mapping: StoredMapping, member: string): ColumnMapping[] {
  const header = mapping.header?.name
  if (typeof header !== 'string' || header.trim() === '')
    throw invalid(`${member}.header.name`, 'must name a column')
  const type = mapping.definition?.type
  const name = mapping.definition?.name
  if (typeof type !== 'string')
    throw invalid(
      `${member}.definition.type`,
      'must be a definition type such as ReadoutDefinition',
    )
  const internal = INTERNAL_ROLES[type]
  if (
    internal === 'structure' ||
    internal === 'molecule name' ||
    internal === 'synonyms' ||
    internal === 'batch name'
  ) {
    return [{ header: header.trim(), target: { role: internal } }]
  }
  if (type === 'MoleculeFieldDefinition' || type === 'BatchFieldDefinition') {
    const category = type === 'MoleculeFieldDefinition' ? 'molecule' : 'batch'
    const field = access.db
      .prepare(
        `SELECT name FROM field_definitions WHERE vault_id = ? AND category = ? AND name = ?`,
      )
      .get(access.vault.id, category, name) as { name: string } | undefined
    if (!field)
      throw invalid(
        `${member}.definition.name`,
        `${JSON.stringify(name)} is not a ${category} field of this vault`,
      )
    return [
      {
        header: header.trim(),
        target: {
          role: type === 'MoleculeFieldDefinition' ? 'molecule field' : 'batch field',
          name: field.name,
        },
      },
    ]
  }
  if (type === 'ReadoutDefinition') {
    const id = Number(mapping.definition?.id)
    if (!Number.isSafeInteger(id))
      throw invalid(`${member}.definition.id`, 'must be a readout definition id')
    protocolOfDefinition(access, id, `${member}.definition.id`)
    return [{ header: header.trim(), target: { role: 'readout', definitionId: id } }]
  }
  if (type.startsWith('InternalFieldDefinition::')) return []
  throw invalid(
    `${member}.definition.type`,
    `${JSON.stringify(type)} is not a definition type an import can fill`,
  )
}

function protocolOfDefinition(
  access: VaultAccess,
  definitionId: number,
  member = 'json.mapping_template',
): number {
  const row = access.db
    .prepare(
      `SELECT protocols.id FROM readout_definitions JOIN protocols ON protocols.id = readout_definitions.protocol_id
       WHERE readout_definitions.id = ? AND protocols.vault_id = ? AND readout_definitions.role != 'calculated'`,
    )
    .get(definitionId, access.vault.id) as { id: number } | undefined
  if (!row)
    throw invalid(
      member,
      `readout definition ${definitionId} is not an importable readout of this vault`,
    )
  return row.id
}

function readRuns(params: Params, nowSeconds: number): RunPlan[] {
  const raw = params.raw('runs')
  const items = raw === undefined || raw === null ? [{}] : Array.isArray(raw) ? raw : [raw]
  if (items.length === 0) throw invalid('json.runs', 'must describe at least one run')
  const today = nowSeconds - (nowSeconds % 86_400)
  return items.map((item: unknown, index) => {
    const member = `json.runs[${index}]`
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw invalid(member, 'must be an object')
    const run = new Params(item as Record<string, unknown>, 'body', params.timeZone, `${member}.`)
    const dateText = run.string('run_date')
    const runDate = dateText === undefined ? today : parseRunDay(dateText)
    if (runDate === undefined)
      throw invalid(
        `${member}.run_date`,
        `must be a date as YYYY-MM-DD, got ${JSON.stringify(dateText)}`,
      )
    const plan = {
      runDate,
      place: run.string('place', { allowEmpty: true }) ?? '',
      person: run.string('person', { allowEmpty: true }) ?? '',
      conditions: run.string('conditions', { allowEmpty: true }) ?? '',
    }
    run.rejectUnknown()
    return plan
  })
}
