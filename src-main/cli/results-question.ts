/**
 * `export --results`: the results table a window's Results screen shows, asked from the command
 * line. Protocols and columns are named as a person reads them (a protocol by name or id, a column
 * as `PROTOCOL: READOUT`), checked against the cache's catalogue, and anything that names nothing
 * is a usage error listing what there is.
 */
import type { Catalogue, ProtocolEntry } from '../../src-common/analysis/readouts/catalogue.ts'
import type { ResultsColumn } from '../../src-common/analysis/readouts/results-table.ts'
import type { ResultsExportRequest } from '../services/export-service.ts'
import { AppError } from '../shared/app-error.ts'
import type { CommandContext, OptionSpec } from './command.ts'
import type { CliListQuestion } from './list-question.ts'

export const resultsQuestionOptions: OptionSpec = {
  results: { type: 'boolean' },
  protocol: { type: 'string', multiple: true },
  column: { type: 'string', multiple: true },
  sort: { type: 'string' },
  descending: { type: 'boolean' },
}

export const resultsQuestionUsage =
  "[--results --protocol NAME|ID... [--column 'PROTOCOL: READOUT']... [--sort name|'PROTOCOL: READOUT' [--descending]]]"

/** The results table `asked` describes, with the `--results` options. */
export function readResultsQuestion(
  context: CommandContext,
  catalogue: Catalogue,
  asked: CliListQuestion,
): ResultsExportRequest['question'] {
  const { values } = context
  const { question } = asked
  if (question.kind !== 'molecules' && question.kind !== 'batches') {
    throw new AppError(
      'invalid_argument',
      `A results table has a row per molecule or per batch, not per ${question.kind}.`,
    )
  }
  if (question.structure) {
    throw new AppError(
      'invalid_argument',
      '--results does not combine with structure searches: export the molecules of the structure search, or narrow the table with --readout, --text and --field.',
    )
  }
  const protocolNames = listOption(values.protocol)
  const columnNames = listOption(values.column)
  if (protocolNames.length === 0 && columnNames.length === 0) {
    throw new AppError(
      'invalid_argument',
      `--results needs --protocol NAME|ID or --column 'PROTOCOL: READOUT'. Protocols with results: ${namesOf(catalogue)}.`,
    )
  }
  const columns: ResultsColumn[] = []
  const add = (column: ResultsColumn): void => {
    if (!columns.some((known) => sameColumn(known, column))) columns.push(column)
  }
  for (const name of protocolNames) {
    const protocol = protocolNamed(catalogue, name)
    for (const readout of protocol.readouts) {
      add({ protocolId: protocol.id, definitionId: readout.id })
    }
  }
  for (const name of columnNames) add(columnNamed(catalogue, name, '--column'))
  if (columns.length === 0) {
    throw new AppError('invalid_argument', 'The protocols named have no readout definitions.')
  }
  const sortText = typeof values.sort === 'string' ? values.sort.trim() : undefined
  const direction = values.descending === true ? 'desc' : 'asc'
  let sort: ResultsExportRequest['question']['sort']
  if (sortText !== undefined && sortText.toLowerCase() !== 'name') {
    const column = columnNamed(catalogue, sortText, '--sort')
    const index = columns.findIndex((known) => sameColumn(known, column))
    if (index < 0) {
      throw new AppError(
        'invalid_argument',
        `--sort names ${JSON.stringify(sortText)}, which is not a column of the table: add it with --column.`,
      )
    }
    sort = { column: index, direction }
  } else if (sortText !== undefined || values.descending === true) {
    sort = { column: 'name', direction }
  }
  const within = {
    ...(question.text !== undefined ? { text: question.text } : {}),
    ...(question.fields !== undefined ? { fields: question.fields } : {}),
  }
  return {
    level: question.kind === 'batches' ? 'batch' : 'molecule',
    columns,
    ...(sort ? { sort } : {}),
    ...(question.results && question.results.length > 0 ? { criteria: question.results } : {}),
    ...(Object.keys(within).length > 0 ? { within } : {}),
  }
}

function listOption(value: unknown): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).map((item) => String(item).trim())
}

const sameColumn = (a: ResultsColumn, b: ResultsColumn): boolean =>
  a.protocolId === b.protocolId && a.definitionId === b.definitionId

const folded = (text: string): string => text.trim().toLocaleLowerCase()

function namesOf(catalogue: Catalogue): string {
  return catalogue.length === 0
    ? 'none (sync the vault first)'
    : catalogue.map((protocol) => `${protocol.name} (${protocol.id})`).join(', ')
}

function protocolNamed(catalogue: Catalogue, name: string): ProtocolEntry {
  const byId = /^\d+$/.test(name) ? catalogue.find((entry) => entry.id === Number(name)) : undefined
  const found = byId ?? catalogue.filter((entry) => folded(entry.name) === folded(name))
  if (!Array.isArray(found)) return found
  if (found.length === 1) return found[0]!
  throw new AppError(
    'invalid_argument',
    found.length === 0
      ? `No protocol with results is named ${JSON.stringify(name)}. Protocols with results: ${namesOf(catalogue)}.`
      : `Several protocols are named ${JSON.stringify(name)} (ids ${found.map((entry) => entry.id).join(', ')}): name it by id.`,
  )
}

/** `PROTOCOL: READOUT`, the protocol by name or id; the split is at the last colon. */
function columnNamed(catalogue: Catalogue, text: string, option: string): ResultsColumn {
  const split = text.lastIndexOf(':')
  if (split <= 0 || split === text.length - 1) {
    throw new AppError(
      'invalid_argument',
      `${option} takes 'PROTOCOL: READOUT', not ${JSON.stringify(text)}.`,
    )
  }
  const protocol = protocolNamed(catalogue, text.slice(0, split).trim())
  const readoutName = text.slice(split + 1).trim()
  const readout = protocol.readouts.find((entry) => folded(entry.name) === folded(readoutName))
  if (!readout) {
    throw new AppError(
      'invalid_argument',
      `Protocol ${protocol.name} has no readout ${JSON.stringify(readoutName)}. Its readouts: ${protocol.readouts.map((entry) => entry.name).join(', ')}.`,
    )
  }
  return { protocolId: protocol.id, definitionId: readout.id }
}
