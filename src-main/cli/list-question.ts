/**
 * The search options `find` and `export` share: KIND, --text, --field, --readout and the structure
 * searches, read into the question a window's list asks (`ListQuestion`), and made ready to answer
 * (the readout and structure indexes completed first, with progress on stderr). Also where their
 * streamed output goes: standard output, taken with backpressure.
 */
import { Writable } from 'node:stream'
import { isInchiKey } from '../chem/structure-query.ts'
import type { ListQuestion } from '../services/export-service.ts'
import type { Services } from '../services/index.ts'
import { AppError } from '../shared/app-error.ts'
import { recordKind } from '../store/record-kinds.ts'
import { processIo, type CliIo } from './cli-io.ts'
import type { CommandContext, OptionSpec } from './command.ts'
import { completeReadoutIndex } from './readout-index-progress.ts'
import { vaultIdOption } from './vault-option.ts'

export const listQuestionOptions: OptionSpec = {
  vault: { type: 'string' },
  text: { type: 'string' },
  field: { type: 'string', multiple: true },
  readout: { type: 'string', multiple: true },
  substructure: { type: 'string' },
  exact: { type: 'string' },
  similar: { type: 'string' },
  threshold: { type: 'string' },
  top: { type: 'string' },
}

/** How the shared options read in a command's usage line. */
export const listQuestionUsage =
  "--vault ID [KIND] [--text T] [--field NAME=VALUE]... [--readout 'PROTOCOL: READOUT < 1 uM']... [--substructure Q | --exact Q | --similar SMILES [--threshold T] [--top K]]"

export interface CliListQuestion {
  vaultId: number
  question: ListQuestion & { kind: ReturnType<typeof recordKind>['name'] }
}

/** Reads the shared options; whatever is wrong with them is a usage error that says what. */
export function readListQuestion(context: CommandContext, command: string): CliListQuestion {
  const { values, positionals } = context
  const vaultId = vaultIdOption(values.vault)
  if (vaultId === undefined) throw new AppError('invalid_argument', `${command} needs --vault ID.`)
  if (positionals.length > 1) {
    throw new AppError(
      'invalid_argument',
      `${command} takes one KIND, got ${positionals.join(', ')}.`,
    )
  }
  const kind = recordKind(positionals[0] ?? 'molecules').name
  const structure = structureOption(values)
  if (structure && kind !== 'molecules') {
    throw new AppError('invalid_argument', `Structure searches find molecules, not ${kind}.`)
  }
  const results = readoutOptions(values.readout)
  if (results.length > 0 && kind !== 'molecules' && kind !== 'batches') {
    throw new AppError(
      'invalid_argument',
      `Searches by results find molecules and batches, not ${kind}.`,
    )
  }
  const fields = fieldOptions(values.field)
  const text = typeof values.text === 'string' ? values.text : undefined
  return {
    vaultId,
    question: {
      kind,
      ...(text !== undefined ? { text } : {}),
      ...(Object.keys(fields).length > 0 ? { fields } : {}),
      ...(results.length > 0 ? { results } : {}),
      ...(structure ? { structure } : {}),
    },
  }
}

/**
 * Completes what the question is answered from before it is asked, with progress on stderr: the
 * readout index for results criteria, the structure index for structure searches.
 */
export async function prepareListQuestion(
  context: CommandContext,
  services: Services,
  connectionId: string,
  { vaultId, question }: CliListQuestion,
): Promise<void> {
  if ((question.results ?? []).length > 0) {
    completeReadoutIndex(context, services.runtimes.get(connectionId).cache, vaultId)
  }
  if (question.structure) {
    // Only an InChIKey search reads what the index computes after a molecule is searchable.
    const details = question.structure.kind === 'exact' && isInchiKey(question.structure.query)
    await buildIndex(context, services, connectionId, vaultId, details)
  }
}

/** A whole number option from `min` on (`--limit`, `--offset`), or undefined when not given. */
export function countOption(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined) return undefined
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN
  if (!Number.isSafeInteger(number) || number < min) {
    throw new AppError(
      'invalid_argument',
      `${name} takes a whole number from ${min} on, not ${JSON.stringify(value)}.`,
    )
  }
  return number
}

/** Standard output as a stream: the process's own, or one that hands text to an in-process io. */
export function standardOutput(io: CliIo): { stream: Writable; terminal: boolean } {
  if (io === processIo) return { stream: process.stdout, terminal: process.stdout.isTTY === true }
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.stdout(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))
      done()
    },
  })
  return { stream, terminal: false }
}

/** Calls `onEvery` at most twice a second (and never for a quick job). */
export function throttled<T extends unknown[]>(
  onEvery: (...args: T) => void,
  everyMs = 500,
): (...args: T) => void {
  let lastAt = Date.now()
  return (...args: T) => {
    if (Date.now() - lastAt < everyMs) return
    lastAt = Date.now()
    onEvery(...args)
  }
}

type StructureOption = NonNullable<ListQuestion['structure']>

function structureOption(values: CommandContext['values']): StructureOption | undefined {
  const given = (['substructure', 'exact', 'similar'] as const).filter(
    (name) => values[name] !== undefined,
  )
  if (given.length > 1) {
    throw new AppError(
      'invalid_argument',
      `Give one of --substructure, --exact and --similar, not ${given.map((name) => `--${name}`).join(' and ')}.`,
    )
  }
  const threshold = numberOption(values.threshold, '--threshold', 0, 1, false)
  const top = numberOption(values.top, '--top', 1, 1000, true)
  if (given[0] !== 'similar' && (threshold !== undefined || top !== undefined)) {
    throw new AppError('invalid_argument', '--threshold and --top go with --similar SMILES.')
  }
  const query = given[0] === undefined ? undefined : String(values[given[0]])
  if (query === undefined) return undefined
  if (query.trim() === '') {
    throw new AppError('invalid_argument', `--${given[0]} needs a structure, not an empty text.`)
  }
  switch (given[0]) {
    case 'substructure':
      return { kind: 'substructure', query }
    case 'exact':
      return { kind: 'exact', query }
    default:
      return {
        kind: 'similarity',
        smiles: query,
        ...(threshold !== undefined ? { threshold } : {}),
        ...(top !== undefined ? { top } : {}),
      }
  }
}

function numberOption(
  value: unknown,
  name: string,
  min: number,
  max: number,
  whole: boolean,
): number | undefined {
  if (value === undefined) return undefined
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN
  if (!(number >= min && number <= max) || (whole && !Number.isInteger(number))) {
    throw new AppError(
      'invalid_argument',
      `${name} takes ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}, not ${JSON.stringify(value)}.`,
    )
  }
  return number
}

function fieldOptions(value: unknown): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const item of Array.isArray(value) ? value : []) {
    const text = String(item)
    const split = text.indexOf('=')
    if (split <= 0) {
      throw new AppError(
        'invalid_argument',
        `--field takes NAME=VALUE, not ${JSON.stringify(text)}.`,
      )
    }
    fields[text.slice(0, split).trim()] = text.slice(split + 1)
  }
  return fields
}

function readoutOptions(value: unknown): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).map(String)
}

/**
 * Brings the vault's structure index up to date, with progress on stderr when it has work; with
 * `details`, also the InChIKeys and properties.
 */
async function buildIndex(
  context: CommandContext,
  services: Services,
  connectionId: string,
  vaultId: number,
  details: boolean,
): Promise<void> {
  let lastAt = 0
  let announced = false
  const summary = await services.chem.buildIndex(
    connectionId,
    vaultId,
    ({ indexed, total, detailsPending }) => {
      const waiting = details ? detailsPending : 0
      const done = indexed >= total && waiting === 0
      if (done && !announced) return
      if (!announced) {
        announced = true
        context.io.stderr(`Indexing the structures of vault ${vaultId}…\n`)
      }
      if (Date.now() - lastAt < 500 && !done) return
      lastAt = Date.now()
      const detailsLeft = waiting > 0 ? `, properties and InChIKeys to compute: ${waiting}` : ''
      context.io.stderr(`structures indexed: ${indexed}/${total}${detailsLeft}\n`)
    },
    { details },
  )
  if (summary.unparseable > 0) {
    context.io.stderr(`${summary.unparseable} structure(s) could not be parsed\n`)
  }
}
