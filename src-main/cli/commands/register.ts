import fs from 'node:fs'
import path from 'node:path'
import {
  noveltyRelationLabels,
  type NoveltyMatch,
  type NoveltyReport,
} from '../../../src-common/registration/novelty.ts'
import type {
  FieldValueText,
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  StructureText,
} from '../../../src-common/registration/form.ts'
import type { Services } from '../../services/index.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command, CommandContext } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { exitCodes, type ExitCode } from '../exit-codes.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery, type Delivery } from './outbox-delivery.ts'

const usage =
  'vault-desk register --vault V (--smiles S | --molfile FILE) [--name N] --project P [--project P2 ...] [--field NAME=VALUE]... [--batch-field NAME=VALUE]... [--salt S] [--duplicate new|existing:ID] [--connection NAME | --base-url URL --token-env VAR] [--json]'

/** The largest molfile read: far more than any small molecule's (a protein is not registered so). */
const molfileLimit = 1_000_000

/** What `register` printed: queued (and perhaps sent), refused by the checks, or a known structure. */
type RegisterDocument =
  | ({ outcome: 'queued'; novelty: NoveltyReport | null } & Delivery)
  | { outcome: 'problems'; problems: RegistrationProblem[] }
  | { outcome: 'duplicates'; novelty: NoveltyReport }

function repeated(value: unknown): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).map(String)
}

/** `--field NAME=VALUE` (repeatable): a value that reads as a number is checked as one. */
function fieldsOf(value: unknown, option: string): Record<string, FieldValueText> {
  const fields: Record<string, FieldValueText> = {}
  for (const entry of repeated(value)) {
    const match = /^([^=]+)=(.*)$/s.exec(entry)
    if (!match || match[1]!.trim() === '') {
      throw new AppError(
        'invalid_argument',
        `--${option} takes NAME=VALUE, not ${JSON.stringify(entry)}.`,
      )
    }
    fields[match[1]!.trim()] = match[2]!.trim()
  }
  return fields
}

function structureOf(context: CommandContext): StructureText {
  const smiles = stringOption(context.values.smiles)
  const molfile = stringOption(context.values.molfile)
  if ((smiles === undefined) === (molfile === undefined)) {
    throw new AppError(
      'invalid_argument',
      `Give the structure as --smiles S or --molfile FILE. usage: ${usage}`,
    )
  }
  if (smiles !== undefined) {
    // CXSMILES carries its extensions after a space and a bar.
    return { format: /\s\|/.test(smiles) ? 'cxsmiles' : 'smiles', text: smiles }
  }
  const file = path.resolve(molfile!)
  let size: number
  try {
    size = fs.statSync(file).size
  } catch {
    throw new AppError(
      'invalid_argument',
      `--molfile ${JSON.stringify(molfile)}: there is no such file.`,
    )
  }
  if (size > molfileLimit) {
    throw new AppError(
      'invalid_argument',
      `--molfile ${JSON.stringify(molfile)} is ${size} bytes: a molfile of at most ${molfileLimit} is read.`,
    )
  }
  return { format: 'molfile', text: fs.readFileSync(file, 'utf8') }
}

function duplicateOf(value: unknown): RegistrationRequest['duplicate'] | null {
  const text = stringOption(value)
  if (text === undefined) return null
  if (text === 'new') return { kind: 'new' }
  const existing = /^existing:(\d+)$/.exec(text)
  if (existing) return { kind: 'existing', moleculeId: Number(existing[1]) }
  throw new AppError(
    'invalid_argument',
    `--duplicate takes new or existing:MOLECULE_ID, not ${JSON.stringify(text)}.`,
  )
}

/** `--project` by id or name, as the vault's form lists them. */
function projectsOf(value: unknown, form: RegistrationForm): number[] {
  return repeated(value).map((given) => {
    const text = given.trim()
    const found = form.projects.find(
      (project) => String(project.id) === text || project.name.toLowerCase() === text.toLowerCase(),
    )
    if (found) return found.id
    if (/^\d+$/.test(text)) return Number(text) // refused by the checks, with the known ones
    throw new AppError(
      'invalid_argument',
      `--project ${JSON.stringify(text)} is not a project of this vault (known: ${form.projects.map((project) => `${project.id} ${project.name}`).join(', ') || 'none: sync the vault first'}).`,
    )
  })
}

/**
 * The novelty check before queueing: the structure index is brought up to date (InChIKeys
 * included) so that every cached molecule is compared.
 */
async function noveltyCheck(
  context: CommandContext,
  services: Services,
  connectionId: string,
  vaultId: number,
  structure: StructureText,
): Promise<NoveltyReport> {
  let announced = false
  await services.chem.buildIndex(
    connectionId,
    vaultId,
    ({ indexed, total, detailsPending }) => {
      if (announced || (indexed >= total && detailsPending === 0)) return
      announced = true
      context.io.stderr(`Indexing the structures of vault ${vaultId} for the novelty check…\n`)
    },
    { details: true },
  )
  return services.novelty.check(connectionId, vaultId, structure)
}

function describeMatch(match: NoveltyMatch): string {
  const who =
    match.id !== null ? `molecule ${match.id}` : `the molecule queued by item ${match.pendingItem}`
  return `  ${noveltyRelationLabels[match.relation]}: ${who} ${match.name}${match.smiles ? ` (${match.smiles})` : ''}\n`
}

function describe(document: RegisterDocument): string {
  switch (document.outcome) {
    case 'problems':
      return `Nothing was queued:\n${document.problems.map((problem) => `  ${problem.member}: ${problem.message}\n`).join('')}`
    case 'duplicates':
      if (!document.novelty.ok) return `${document.novelty.error}\n`
      return `Nothing was queued: the vault already has molecules like this structure.\n${document.novelty.matches.map(describeMatch).join('')}Give --duplicate existing:ID to add a batch to one of them, or --duplicate new to register it anyway.\n`
    case 'queued':
      return describeDelivery(document)
  }
}

/**
 * `vault-desk register`: registers a compound as the registration dialog does. The structure is
 * checked for novelty against the cached vault (and what the outbox holds) first: known, it is
 * refused until the person says which way (`--duplicate`). The request is checked against the
 * vault's form from the cache, queued, and sent unless the app sends.
 */
export const registerCommand: Command = {
  name: 'register',
  summary:
    'Register a compound (its molecule and batch), checked for novelty, and send it when online.',
  usage,
  options: {
    vault: { type: 'string' },
    smiles: { type: 'string' },
    molfile: { type: 'string' },
    name: { type: 'string' },
    project: { type: 'string', multiple: true },
    field: { type: 'string', multiple: true },
    'batch-field': { type: 'string', multiple: true },
    salt: { type: 'string' },
    duplicate: { type: 'string' },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    if (vaultId === undefined)
      throw new AppError('invalid_argument', `register needs --vault V. usage: ${usage}`)
    if (context.positionals.length > 0) {
      throw new AppError(
        'invalid_argument',
        `register takes no arguments but options. usage: ${usage}`,
      )
    }
    const structure = structureOf(context)
    const duplicate = duplicateOf(context.values.duplicate)
    const moleculeFields = fieldsOf(context.values.field, 'field')
    const batchFields = fieldsOf(context.values['batch-field'], 'batch-field')
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const form = services.registration.form(runtime.id, vaultId)
    const projects = projectsOf(context.values.project, form)
    if (projects.length === 0) {
      throw new AppError('invalid_argument', `register needs --project P. usage: ${usage}`)
    }
    const salt = stringOption(context.values.salt)
    const name = stringOption(context.values.name)
    const withBatch =
      form.vaultKind === 'registration' ||
      Object.keys(batchFields).length > 0 ||
      salt !== undefined ||
      duplicate?.kind === 'existing'

    const output = (document: RegisterDocument, exitCode: ExitCode) => ({
      document,
      exitCode,
      human: () => describe(document),
    })
    let novelty: NoveltyReport | null = null
    if (duplicate === null) {
      novelty = await noveltyCheck(context, services, runtime.id, vaultId, structure)
      if (!novelty.ok) {
        return output(
          { outcome: 'problems', problems: [{ member: 'structure', message: novelty.error }] },
          exitCodes.usage,
        )
      }
      if (novelty.unchecked > 0) {
        context.io.stderr(
          `${novelty.unchecked} cached molecule(s) could not be compared (their structures are not indexed).\n`,
        )
      }
      if (novelty.matches.length > 0) {
        return output({ outcome: 'duplicates', novelty }, exitCodes.failure)
      }
    }
    const result = await services.registration.queue({
      connectionId: runtime.id,
      vaultId,
      structure,
      ...(name !== undefined ? { name } : {}),
      projects,
      moleculeFields,
      ...(withBatch
        ? { batch: { fields: batchFields, ...(salt !== undefined ? { saltName: salt } : {}) } }
        : {}),
      duplicate: duplicate ?? { kind: 'none' },
    })
    if (!result.ok) {
      return output({ outcome: 'problems', problems: result.problems }, exitCodes.usage)
    }
    const delivery = await deliver(
      services,
      result.items.map((id) => services.outbox.item(id)),
      context.holder,
    )
    return output({ outcome: 'queued', novelty, ...delivery }, deliveryExitCode(delivery))
  },
}
