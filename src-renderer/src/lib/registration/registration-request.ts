/**
 * What the registration dialog sends, read from what the person typed: the structure's format
 * (SMILES, CXSMILES or a molfile, told apart by their shape), each field's value by the vault's
 * type for it, and the request as main takes it. Every problem is named by the member it is about
 * (as main names its own, `batch.fields.Purity (%)`), so the dialog shows it beside its field.
 */
import type {
  FieldValueText,
  RegistrationField,
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  StructureText,
} from '../../../../src-common/registration/form.ts'

export type StructureReading =
  { ok: true; structure: StructureText } | { ok: false; message: string }

/** A molfile's counts line or end marker, in either version. */
const molfileShape = /^M {2}END\s*$|\bV[23]000\b/m
/** CXSMILES: a SMILES, a space, then the extensions between bars. */
const cxsmilesShape = /^\S+\s+\|.*\|\s*$/s

/**
 * The structure as pasted: a molfile keeps its lines exactly (its first three are a header,
 * blank ones included); a SMILES or CXSMILES is one line, trimmed.
 */
export function readStructure(text: string): StructureReading {
  if (text.trim() === '') return { ok: false, message: 'Draw or paste a structure.' }
  if (molfileShape.test(text)) {
    if (!/^M {2}END\s*$/m.test(text)) {
      return {
        ok: false,
        message: 'The molfile has no “M  END” line: paste the whole molfile.',
      }
    }
    return { ok: true, structure: { format: 'molfile', text: text.replace(/\s+$/, '') + '\n' } }
  }
  const trimmed = text.trim()
  if (/[\r\n]/.test(trimmed)) {
    return {
      ok: false,
      message:
        'Several lines were pasted: give one SMILES (or CXSMILES) on one line, or a whole molfile.',
    }
  }
  return {
    ok: true,
    structure: { format: cxsmilesShape.test(trimmed) ? 'cxsmiles' : 'smiles', text: trimmed },
  }
}

export const formatLabels: Record<StructureText['format'], string> = {
  smiles: 'SMILES',
  cxsmiles: 'CXSMILES',
  molfile: 'Molfile',
}

const numberShape = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i
const dayShape = /^(\d{4})-(\d{2})-(\d{2})$/

/** A field's value, or what is wrong with it said of the field (`is required`). */
export type FieldReading = { ok: true; value: FieldValueText } | { ok: false; message: string }

/**
 * One field's value from its text, by the vault's type for it; empty is null (left out), unless
 * the field is required. A decimal comma is refused rather than guessed (`1,000`).
 */
export function readFieldValue(field: RegistrationField, text: string): FieldReading {
  const trimmed = text.trim()
  if (trimmed === '') {
    return field.required ? { ok: false, message: 'is required' } : { ok: true, value: null }
  }
  switch (field.type) {
    case 'Number': {
      if (/^[+-]?\d*,\d+$/.test(trimmed)) {
        return { ok: false, message: `has a comma in “${trimmed}”: write decimals with a point` }
      }
      const value = Number(trimmed)
      if (!numberShape.test(trimmed) || !Number.isFinite(value)) {
        return { ok: false, message: `must be a number; “${trimmed}” is not one` }
      }
      return { ok: true, value }
    }
    case 'Date': {
      const parts = dayShape.exec(trimmed)
      const day = parts ? new Date(Date.UTC(+parts[1]!, +parts[2]! - 1, +parts[3]!)) : null
      if (!parts || !day || day.toISOString().slice(0, 10) !== trimmed) {
        return {
          ok: false,
          message: `must be a date (year-month-day); “${trimmed}” is not one`,
        }
      }
      return { ok: true, value: trimmed }
    }
    case 'Pick List': {
      const choices = field.choices ?? []
      if (!choices.includes(trimmed)) {
        return {
          ok: false,
          message: `must be one of its list's values; “${trimmed}” is not`,
        }
      }
      return { ok: true, value: trimmed }
    }
    default:
      return { ok: true, value: trimmed }
  }
}

/** The member a field's problem is named by. */
export function fieldMember(group: 'molecule' | 'batch', name: string): string {
  return group === 'molecule' ? `moleculeFields.${name}` : `batch.fields.${name}`
}

/** What the dialog holds, as typed. */
export interface RegistrationDraft {
  structure: string
  name: string
  description: string
  /** One synonym a line. */
  synonyms: string
  projects: number[]
  moleculeFields: Record<string, string>
  /** In a vault without a registration system a batch is optional for a new molecule. */
  withBatch: boolean
  batchName: string
  /** Counts per formula unit, as typed; registration vaults only. */
  stoichiometry: { core: string; salt: string; solvent: string }
  saltName: string
  solventName: string
  batchFields: Record<string, string>
  duplicate: RegistrationRequest['duplicate'] | null
}

export function emptyDraft(): RegistrationDraft {
  return {
    structure: '',
    name: '',
    description: '',
    synonyms: '',
    projects: [],
    moleculeFields: {},
    withBatch: false,
    batchName: '',
    stoichiometry: { core: '', salt: '', solvent: '' },
    saltName: '',
    solventName: '',
    batchFields: {},
    duplicate: null,
  }
}

/**
 * The fields a registration fills, as they apply in this vault: required ones bind only in a
 * vault with a registration system, whose new batch carries only the structure (its molecule
 * fields are edited once it is registered).
 */
export function fieldsOf(form: RegistrationForm, group: 'molecule' | 'batch'): RegistrationField[] {
  if (group === 'molecule' && form.vaultKind === 'registration') return []
  const fields = group === 'molecule' ? form.moleculeFields : form.batchFields
  return form.vaultKind === 'registration'
    ? fields
    : fields.map((field) => (field.required ? { ...field, required: false } : field))
}

/** Whether the request carries a batch: always in registration vaults and for an existing molecule. */
export function includesBatch(form: RegistrationForm, draft: RegistrationDraft): boolean {
  return (
    form.vaultKind === 'registration' || draft.duplicate?.kind === 'existing' || draft.withBatch
  )
}

function readFields(
  fields: readonly RegistrationField[],
  texts: Record<string, string>,
  group: 'molecule' | 'batch',
  problems: RegistrationProblem[],
): Record<string, FieldValueText> {
  const values: Record<string, FieldValueText> = {}
  for (const field of fields) {
    const reading = readFieldValue(field, texts[field.name] ?? '')
    if (!reading.ok)
      problems.push({ member: fieldMember(group, field.name), message: reading.message })
    else if (reading.value !== null) values[field.name] = reading.value
  }
  return values
}

export type RequestReading =
  { ok: true; request: RegistrationRequest } | { ok: false; problems: RegistrationProblem[] }

/**
 * The request main is asked to queue, or every problem found before asking: the structure, the
 * name a vault without a registration system needs, a project, each field, and the person's
 * answer to the novelty check when it found matches.
 */
export function readRequest(
  target: { connectionId: string; vaultId: number },
  form: RegistrationForm,
  draft: RegistrationDraft,
  matchesFound: boolean,
): RequestReading {
  const problems: RegistrationProblem[] = []
  const structure = readStructure(draft.structure)
  if (!structure.ok) problems.push({ member: 'structure', message: structure.message })
  const name = draft.name.trim()
  if (form.vaultKind === 'plain' && name === '' && draft.duplicate?.kind !== 'existing') {
    problems.push({ member: 'name', message: 'Give the molecule a name.' })
  }
  const reachable = new Set(form.projects.map((project) => project.id))
  if (draft.projects.length === 0) {
    problems.push({ member: 'projects', message: 'Choose at least one project.' })
  } else if (draft.projects.some((id) => !reachable.has(id))) {
    problems.push({ member: 'projects', message: 'A chosen project is no longer open to you.' })
  }
  if (draft.duplicate === null && matchesFound) {
    problems.push({
      member: 'duplicate',
      message:
        'The vault already knows this structure: choose a molecule for a new batch, or register it as new.',
    })
  }
  // A new batch of a molecule the vault has leaves the molecule as it is; a vault with a
  // registration system makes the molecule from the structure alone.
  const existing = draft.duplicate?.kind === 'existing'
  const describes = !existing && form.vaultKind === 'plain'
  const moleculeFields = existing
    ? {}
    : readFields(fieldsOf(form, 'molecule'), draft.moleculeFields, 'molecule', problems)
  const batch = includesBatch(form, draft)
    ? {
        fields: readFields(fieldsOf(form, 'batch'), draft.batchFields, 'batch', problems),
        ...optionalText('name', draft.batchName),
        ...optionalText('saltName', draft.saltName),
        ...optionalText('solventName', draft.solventName),
        ...readStoichiometry(form, draft.stoichiometry, problems),
      }
    : undefined
  if (problems.length > 0 || !structure.ok) return { ok: false, problems }
  const synonyms = draft.synonyms
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
  return {
    ok: true,
    request: {
      connectionId: target.connectionId,
      vaultId: target.vaultId,
      structure: structure.structure,
      ...(describes ? optionalText('name', name) : {}),
      ...(describes ? optionalText('description', draft.description) : {}),
      ...(describes && synonyms.length > 0 ? { synonyms } : {}),
      projects: [...draft.projects],
      moleculeFields,
      ...(batch ? { batch } : {}),
      duplicate: draft.duplicate ?? { kind: 'none' },
    },
  }
}

/** What an empty count stands for: one core, no salt, no solvent. */
export const stoichiometryDefaults = { core: 1, salt: 0, solvent: 0 } as const

/**
 * The counts of core, salt and solvent in a batch (registration vaults only); left out when none
 * is typed, so that the vault decides. An empty count is its usual value (one core, no salt).
 */
function readStoichiometry(
  form: RegistrationForm,
  texts: RegistrationDraft['stoichiometry'],
  problems: RegistrationProblem[],
): { stoichiometry?: { core: number; salt: number; solvent: number } } {
  const parts = ['core', 'salt', 'solvent'] as const
  if (form.vaultKind !== 'registration' || parts.every((part) => texts[part].trim() === '')) {
    return {}
  }
  const counts: Record<(typeof parts)[number], number> = { ...stoichiometryDefaults }
  for (const part of parts) {
    const text = texts[part].trim()
    if (text === '') continue
    if (!/^\d{1,4}$/.test(text)) {
      problems.push({
        member: `batch.stoichiometry.${part}`,
        message: `must be a whole number of 0 or more; “${text}” is not one`,
      })
    } else counts[part] = Number(text)
  }
  return { stoichiometry: counts }
}

function optionalText<K extends string>(key: K, text: string): Partial<Record<K, string>> {
  const trimmed = text.trim()
  return trimmed === '' ? {} : ({ [key]: trimmed } as Record<K, string>)
}

const memberWords: Record<string, string> = {
  structure: 'The structure',
  name: 'The name',
  projects: 'Projects',
  moleculeFields: 'Molecule fields',
  batch: 'The batch',
  'batch.name': 'The batch name',
  'batch.stoichiometry': 'Stoichiometry',
  'batch.stoichiometry.core': 'The core count',
  'batch.stoichiometry.salt': 'The salt count',
  'batch.stoichiometry.solvent': 'The solvent count',
  // Main says which molecule: `molecule 9 is not in this vault's cache`.
  'duplicate.moleculeId': '',
}

/**
 * A problem as a sentence: main names the member and says the rest (`is required in this
 * vault`), which reads beside a field only with the field's name in front.
 */
export function problemSentence(problem: RegistrationProblem): string {
  const message = problem.message.trim()
  if (!/^[a-z]/.test(message)) return message
  const subject =
    memberWords[problem.member] ?? problem.member.replace(/^(moleculeFields|batch\.fields)\./, '')
  const sentence =
    subject === '' ? message[0]!.toUpperCase() + message.slice(1) : `${subject} ${message}`
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`
}

/** The member a problem is shown beside: one about the chosen molecule goes with the choice. */
function shownMember(member: string): string {
  return member.startsWith('duplicate.') ? 'duplicate' : member
}

/**
 * Problems by member, for showing each beside its field; those naming no field the dialog shows
 * (`others`) are listed together above the buttons.
 */
export function problemsByMember(
  problems: readonly RegistrationProblem[],
  shown: ReadonlySet<string>,
): { byMember: Map<string, string>; others: RegistrationProblem[] } {
  const byMember = new Map<string, string>()
  const others: RegistrationProblem[] = []
  for (const found of problems) {
    const problem = { member: shownMember(found.member), message: problemSentence(found) }
    if (!shown.has(problem.member)) others.push(problem)
    else
      byMember.set(
        problem.member,
        [byMember.get(problem.member), problem.message].filter(Boolean).join(' '),
      )
  }
  return { byMember, others }
}
