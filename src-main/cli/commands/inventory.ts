import fs from 'node:fs'
import path from 'node:path'
import { newPlate, type NewPlate } from '../../../src-common/outbox/payloads/plates.ts'
import type { NewSample } from '../../../src-common/outbox/payloads/inventory-samples.ts'
import { checkSampleFields, sampleUnits } from '../../../src-common/plates/sample-placement.ts'
import { describeMatches, describeWellProblem } from '../../../src-common/plates/well-list.ts'
import { isPlateSize, plateSizes } from '../../../src-common/plates.ts'
import type { PlatesService } from '../../services/plates-service.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command, CommandContext } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery } from './outbox-delivery.ts'

/**
 * `vault-desk sample create` and `vault-desk plate create`: a new inventory sample of a batch, a
 * new plate with its wells from a CSV file, each checked against the local copy of the vault as
 * the window checks them (plates-service.ts) and queued in the outbox, then sent unless the app
 * sends. What the cache cannot judge (a vault never synced) is left to the vault, with a warning.
 */

const sampleUsage =
  'vault-desk sample create --vault V --batch B --amount N --units U [--location ID [--position A01]] [--note TEXT] [--field NAME=VALUE ...] [--connection NAME | --base-url URL --token-env VAR] [--json]'
const plateUsage =
  'vault-desk plate create --vault V --name N --project P [--project P2 ...] --size 96 --wells FILE.csv [--location TEXT] [--concentration C] [--volume V] [--connection NAME | --base-url URL --token-env VAR] [--json]'

/** The largest well list file read: far more than the 1,536 wells of the largest plate need. */
const wellFileLimit = 2_000_000

function requireCreate(context: CommandContext, usage: string): number {
  const [action, ...extra] = context.positionals
  if (action !== 'create' || extra.length > 0) {
    throw new AppError('invalid_argument', `usage: ${usage}`)
  }
  const vaultId = vaultIdOption(context.values.vault)
  if (vaultId === undefined)
    throw new AppError('invalid_argument', `--vault V is needed. usage: ${usage}`)
  return vaultId
}

function required(context: CommandContext, option: string, usage: string): string {
  const value = stringOption(context.values[option])
  if (value === undefined) {
    throw new AppError('invalid_argument', `--${option} is needed. usage: ${usage}`)
  }
  return value
}

function numberOption(value: unknown, option: string, positive: boolean): number | undefined {
  const text = stringOption(value)
  if (text === undefined) return undefined
  const number = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isFinite(number) || (positive && number <= 0)) {
    throw new AppError(
      'invalid_argument',
      `--${option} takes a number${positive ? ' above zero' : ''}, not ${JSON.stringify(text)}.`,
    )
  }
  return number
}

function wholeNumber(value: unknown, option: string): number | undefined {
  const text = stringOption(value)
  if (text === undefined) return undefined
  const number = /^\d+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new AppError(
      'invalid_argument',
      `--${option} takes an id (a whole number), not ${JSON.stringify(text)}.`,
    )
  }
  return number
}

/** `--field NAME=VALUE`, repeatable; a number stays text, as the vault keeps sample fields. */
function fieldsOf(value: unknown): Record<string, string> | undefined {
  const given = Array.isArray(value) ? value : value === undefined ? [] : [value]
  if (given.length === 0) return undefined
  const fields: Record<string, string> = {}
  for (const entry of given) {
    const match = typeof entry === 'string' ? /^([^=]+)=(.*)$/.exec(entry) : null
    if (!match || match[1]!.trim() === '') {
      throw new AppError(
        'invalid_argument',
        `--field takes NAME=VALUE, not ${JSON.stringify(entry)}.`,
      )
    }
    fields[match[1]!.trim()] = match[2]!.trim()
  }
  return fields
}

/** `--field` values typed as the vault's sample fields take them; refused naming each fault. */
function typedFields(
  plates: PlatesService,
  connectionId: string,
  vaultId: number,
  given: Record<string, string>,
): Record<string, string | number> | undefined {
  const check = checkSampleFields(plates.sampleForm(connectionId, vaultId).fields, given)
  if (!check.ok) {
    throw new AppError(
      'invalid_argument',
      check.problems.map((problem) => `--field: ${problem.message}`).join('\n'),
    )
  }
  return Object.keys(check.fields).length > 0 ? check.fields : undefined
}

/** The one cached batch a reference names; refused when it names none or several. */
function batchOf(
  plates: PlatesService,
  connectionId: string,
  vaultId: number,
  reference: string,
  warn: (text: string) => void,
): number {
  const [resolution] = plates.resolveWells(connectionId, vaultId, [reference])
  const matches = resolution?.matches ?? []
  const count = resolution?.count ?? 0
  if (count === 1) return matches[0]!.batchId
  if (count > 1) {
    throw new AppError(
      'invalid_argument',
      `--batch ${JSON.stringify(reference)} names ${count} batches: ${describeMatches(matches, count)}. Give the batch id or identifier.`,
    )
  }
  const { cached } = plates.sampleForm(connectionId, vaultId)
  if (cached.batches === 0 && /^\d+$/.test(reference)) {
    warn(
      `Batch ${reference} is not checked: the local copy of vault ${vaultId} holds no batches (run vault-desk sync). The vault will judge it.\n`,
    )
    return Number(reference)
  }
  throw new AppError(
    'invalid_argument',
    cached.batches === 0
      ? `The local copy of vault ${vaultId} holds no batches to find ${JSON.stringify(reference)} in: run vault-desk sync first, or give the batch id.`
      : `No cached batch of vault ${vaultId} has the id, name or identifier ${JSON.stringify(reference)}.`,
  )
}

function unitsOf(value: string): NewSample['units'] {
  const unit = sampleUnits.find(
    (candidate) => candidate === value || candidate === value.replace(/^u/, 'µ'),
  )
  if (!unit) {
    throw new AppError(
      'invalid_argument',
      `--units takes one of ${sampleUnits.join(', ')} (ug, uL... for µg, µL), not ${JSON.stringify(value)}.`,
    )
  }
  return unit
}

export const sampleCommand: Command = {
  name: 'sample',
  summary: 'Queue a new inventory sample of a batch, checked against the local copy.',
  usage: sampleUsage,
  options: {
    vault: { type: 'string' },
    batch: { type: 'string' },
    amount: { type: 'string' },
    units: { type: 'string' },
    location: { type: 'string' },
    position: { type: 'string' },
    note: { type: 'string' },
    field: { type: 'string', multiple: true },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = requireCreate(context, sampleUsage)
    const reference = required(context, 'batch', sampleUsage)
    const amount = numberOption(required(context, 'amount', sampleUsage), 'amount', true)!
    const units = unitsOf(required(context, 'units', sampleUsage))
    const locationId = wholeNumber(context.values.location, 'location')
    const position = stringOption(context.values.position) ?? null
    if (position !== null && locationId === undefined) {
      throw new AppError('invalid_argument', '--position needs --location, the box it is in.')
    }
    const note = stringOption(context.values.note)
    const given = fieldsOf(context.values.field)
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const warn = (text: string) => context.io.stderr(text)
    const batchId = batchOf(services.plates, runtime.id, vaultId, reference, warn)
    const fields = given && typedFields(services.plates, runtime.id, vaultId, given)
    let placement: Pick<NewSample, 'location_id' | 'position'> = {}
    if (locationId !== undefined) {
      const { cached } = services.plates.sampleForm(runtime.id, vaultId)
      if (cached.locations === 0) {
        warn(
          `Location ${locationId} is not checked: the local copy of vault ${vaultId} holds no locations (run vault-desk sync).\n`,
        )
        placement = { location_id: locationId, ...(position ? { position } : {}) }
      } else {
        const label = services.plates.checkPlacement(runtime.id, vaultId, locationId, position)
        placement = { location_id: locationId, ...(label ? { position: label } : {}) }
      }
    }
    const payload: NewSample = {
      batch_id: batchId,
      amount,
      units,
      ...(note ? { note } : {}),
      ...placement,
      ...(fields ? { fields } : {}),
    }
    return queueAndDeliver(context, runtime.id, vaultId, { operation: 'sample.create', payload })
  },
}

/** Queues a new record, sent at once by this process or by the folder's holder (the app). */
async function queueAndDeliver(
  context: CommandContext,
  connectionId: string,
  vaultId: number,
  change:
    | { operation: 'sample.create'; payload: NewSample }
    | { operation: 'plate.create'; payload: NewPlate },
): ReturnType<Command['run']> {
  const services = context.services()
  const items = await services.outbox.queue({ connectionId, vaultId, ...change })
  const delivery = await deliver(services, items, context.holder)
  return {
    document: delivery,
    exitCode: deliveryExitCode(delivery),
    human: () => describeDelivery(delivery),
  }
}

function readWellFile(file: string): string {
  const resolved = path.resolve(file)
  let size: number
  try {
    const stat = fs.statSync(resolved)
    if (!stat.isFile()) throw new AppError('invalid_argument', `${file}: not a file.`)
    size = stat.size
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError('invalid_argument', `${file}: no such file.`, { cause: error })
  }
  if (size > wellFileLimit) {
    throw new AppError(
      'invalid_argument',
      `${file} has ${size.toLocaleString('en')} bytes; a plate's well list has at most ${wellFileLimit.toLocaleString('en')}.`,
    )
  }
  const bytes = fs.readFileSync(resolved)
  // UTF-16 with its byte order mark, as spreadsheet programs save "Unicode text"; else UTF-8.
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    // Not UTF-8: Windows' Latin-1 export is the usual other one.
    return new TextDecoder('windows-1252').decode(bytes)
  }
}

/** Projects by id or name, each found in the cache once it holds any. */
function projectsOf(
  plates: PlatesService,
  connectionId: string,
  vaultId: number,
  given: readonly string[],
  warn: (text: string) => void,
): NewPlate['projects'] {
  const { cached } = plates.sampleForm(connectionId, vaultId)
  if (cached.projects === 0) {
    warn(
      `Projects are not checked: the local copy of vault ${vaultId} holds none (run vault-desk sync).\n`,
    )
    return given.map((project) => (/^\d+$/.test(project) ? Number(project) : project))
  }
  const found = plates.resolveProjects(connectionId, vaultId, given)
  return given.map((project, index) => {
    const matches = found[index] ?? []
    if (matches.length === 1) return matches[0]!.id
    throw new AppError(
      'invalid_argument',
      matches.length === 0
        ? `No project of vault ${vaultId} that you can reach is named ${JSON.stringify(project)} in the local copy.`
        : `--project ${JSON.stringify(project)} names ${matches.length} projects: ${matches.map((match) => `${match.name} (id ${match.id})`).join(', ')}. Give the project id.`,
    )
  })
}

export const plateCommand: Command = {
  name: 'plate',
  summary: 'Queue a new plate with its wells from a CSV file of wells and batches.',
  usage: plateUsage,
  options: {
    vault: { type: 'string' },
    name: { type: 'string' },
    project: { type: 'string', multiple: true },
    size: { type: 'string' },
    wells: { type: 'string' },
    location: { type: 'string' },
    concentration: { type: 'string' },
    volume: { type: 'string' },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = requireCreate(context, plateUsage)
    const name = required(context, 'name', plateUsage)
    const projectsGiven = (
      Array.isArray(context.values.project) ? context.values.project : []
    ).flatMap((project) => stringOption(project) ?? [])
    if (projectsGiven.length === 0) {
      throw new AppError('invalid_argument', `--project P is needed. usage: ${plateUsage}`)
    }
    const sizeText = required(context, 'size', plateUsage)
    const size = /^\d+$/.test(sizeText) ? Number(sizeText) : Number.NaN
    if (!isPlateSize(size)) {
      throw new AppError(
        'invalid_argument',
        `--size takes the wells of a plate: ${plateSizes.join(', ')}, not ${JSON.stringify(sizeText)}.`,
      )
    }
    const wellFile = required(context, 'wells', plateUsage)
    const concentration = numberOption(context.values.concentration, 'concentration', true)
    const volume = numberOption(context.values.volume, 'volume', true)
    const location = stringOption(context.values.location)
    const text = readWellFile(wellFile)
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const warn = (line: string) => context.io.stderr(line)
    const { plan } = services.plates.readWellList(runtime.id, vaultId, text, size)
    if (plan.problems.length > 0) {
      const shown = plan.problems.slice(0, 50).map((problem) => `  ${describeWellProblem(problem)}`)
      const more = plan.problems.length > 50 ? `\n  …and ${plan.problems.length - 50} more` : ''
      const unsynced =
        services.plates.sampleForm(runtime.id, vaultId).cached.batches === 0
          ? `\nThe local copy of vault ${vaultId} holds no batches: run vault-desk sync first.`
          : ''
      throw new AppError(
        'invalid_argument',
        `${path.basename(wellFile)} has ${plan.problems.length} problem${plan.problems.length === 1 ? '' : 's'}; nothing was queued:\n${shown.join('\n')}${more}${unsynced}`,
      )
    }
    const payload = newPlate.parse({
      name,
      projects: projectsOf(services.plates, runtime.id, vaultId, projectsGiven, warn),
      size,
      wells: plan.wells,
      ...(location ? { location } : {}),
      ...(concentration !== undefined ? { concentration } : {}),
      ...(volume !== undefined ? { volume } : {}),
    })
    return queueAndDeliver(context, runtime.id, vaultId, { operation: 'plate.create', payload })
  },
}
