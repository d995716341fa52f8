import { AppError } from '../../shared/app-error.ts'
import { isInchiKey } from '../../chem/structure-query.ts'
import { recordKind } from '../../store/record-kinds.ts'
import type { Services } from '../../services/index.ts'
import type { ReadoutIndexer } from '../../store/readout-index.ts'
import type { Command, CommandContext } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'

/** What `vault-desk find --json` prints. */
export interface FindResult {
  kind: string
  /** Cached records that match (all of them, not only those printed). */
  count: number
  /**
   * The cached records as the API gave them; with --similar each carries `similarity`, its
   * Tanimoto similarity to the query (as the API's own similarity search answers).
   */
  records: Record<string, unknown>[]
  /** With a structure search: matching molecules skipped because their structure is unparseable. */
  skippedUnparseable?: number
}

const progressEveryMs = 500

export const findCommand: Command = {
  name: 'find',
  summary:
    'List or search cached records of a vault (molecules unless KIND is given), offline; structure searches of molecules too.',
  usage:
    "vault-desk find --vault ID [KIND] [--text T] [--field NAME=VALUE]... [--readout 'PROTOCOL: READOUT < 1 uM']... [--substructure Q | --exact Q | --similar SMILES [--threshold T] [--top K]] [--limit N] [--json]",
  options: {
    vault: { type: 'string' },
    text: { type: 'string' },
    field: { type: 'string', multiple: true },
    readout: { type: 'string', multiple: true },
    limit: { type: 'string' },
    substructure: { type: 'string' },
    exact: { type: 'string' },
    similar: { type: 'string' },
    threshold: { type: 'string' },
    top: { type: 'string' },
  },
  async run(context) {
    const { values, positionals } = context
    const vaultId = vaultIdOption(values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'find needs --vault ID.')
    if (positionals.length > 1) {
      throw new AppError('invalid_argument', `find takes one KIND, got ${positionals.join(', ')}.`)
    }
    const kind = recordKind(positionals[0] ?? 'molecules').name
    const structure = structureOption(values)
    if (structure && kind !== 'molecules') {
      throw new AppError('invalid_argument', `Structure searches find molecules, not ${kind}.`)
    }
    const top = structure?.kind === 'similarity' ? structure.top : undefined
    const limit =
      values.limit === undefined && top !== undefined
        ? Math.min(top, 1000)
        : limitOption(values.limit)
    const fields = fieldOptions(values.field)
    const text = typeof values.text === 'string' ? values.text : undefined
    const filters = {
      ...(text !== undefined ? { text } : {}),
      ...(Object.keys(fields).length > 0 ? { fields } : {}),
      limit,
    }
    const { runtime } = chooseConnection(context)
    const criteria = readoutOptions(values.readout)
    if (criteria.length > 0) {
      if (kind !== 'molecules' && kind !== 'batches') {
        throw new AppError(
          'invalid_argument',
          `Searches by results find molecules and batches, not ${kind}.`,
        )
      }
      completeReadoutIndex(context, runtime.cache, vaultId)
      const services = context.services()
      const ids = services.results.matching(
        runtime.id,
        vaultId,
        criteria,
        kind === 'molecules' ? 'molecule' : 'batch',
      )
      Object.assign(filters, { ids })
    }
    let result: FindResult
    if (structure) {
      const services = context.services()
      // Only an InChIKey search reads what the index computes after a molecule is searchable.
      const details = structure.kind === 'exact' && isInchiKey(structure.query)
      await buildIndex(context, services, runtime.id, vaultId, details)
      let page = await services.browse.listStructure(runtime.id, vaultId, kind, {
        ...filters,
        structure,
      })
      // A substructure search answers its first page early; asking again waits for the count.
      while (!page.structure.complete) {
        page = await services.browse.listStructure(runtime.id, vaultId, kind, {
          ...filters,
          structure,
        })
      }
      const scores = page.structure.scores
      result = {
        kind,
        count: page.total,
        records: page.rows.map((row) =>
          scores ? { ...row.json, similarity: scores[String(row.id)] ?? null } : row.json,
        ),
        skippedUnparseable: page.structure.skippedUnparseable,
      }
    } else {
      // Through the browse service, as the window lists them: with the records still queued.
      const page = context.services().browse.list(runtime.id, vaultId, kind, filters)
      result = { kind, count: page.total, records: page.rows.map((row) => row.json) }
    }
    return {
      document: result,
      human: (document) => {
        const found = document as FindResult
        const lines = found.records.map((record) => {
          const score =
            typeof record.similarity === 'number' ? `  ${record.similarity.toFixed(3)}` : ''
          return `  ${String(record.id)}  ${String(record.name ?? record.value ?? '')}${score}`
        })
        const skipped = found.skippedUnparseable
          ? `${found.skippedUnparseable} molecule(s) skipped: their structure could not be parsed\n`
          : ''
        return `${found.count} ${found.kind}${found.count > found.records.length ? ` (first ${found.records.length})` : ''}\n${lines.join('\n')}\n${skipped}`
      },
    }
  },
}

type StructureOption =
  | { kind: 'substructure'; query: string }
  | { kind: 'exact'; query: string }
  | { kind: 'similarity'; smiles: string; threshold?: number; top?: number }

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
      if (Date.now() - lastAt < progressEveryMs && !done) return
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

function limitOption(value: unknown): number {
  if (value === undefined) return 50
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(limit >= 1 && limit <= 1000)) {
    throw new AppError(
      'invalid_argument',
      `--limit takes a number from 1 to 1000, not ${JSON.stringify(value)}.`,
    )
  }
  return limit
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
 * A search by results needs every readout row indexed: what the cache writer has not indexed yet
 * (a sync that just ended) is indexed here first, with progress on stderr.
 */
function completeReadoutIndex(
  context: CommandContext,
  cache: { readoutIndex(): ReadoutIndexer },
  vaultId: number,
): void {
  const indexer = cache.readoutIndex()
  const first = indexer.backlog()
  if (first.rows === 0 && first.groups === 0) return
  context.io.stderr(`Indexing the readouts of vault ${vaultId}…\n`)
  let lastAt = Date.now()
  indexer.complete(({ rows, groups }) => {
    if (Date.now() - lastAt < progressEveryMs) return
    lastAt = Date.now()
    context.io.stderr(`readout rows to index: ${rows}, aggregates to compute: ${groups}\n`)
  })
}
