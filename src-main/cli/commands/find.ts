import { AppError } from '../../shared/app-error.ts'
import { ExportOutput } from '../../export/output.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import {
  countOption,
  listQuestionOptions,
  listQuestionUsage,
  prepareListQuestion,
  readListQuestion,
  standardOutput,
} from '../list-question.ts'
import {
  readSavedSearchQuestion,
  savedSearchOptions,
  savedSearchUsage,
} from '../saved-search-option.ts'

/** What `vault-desk find --json` prints (written as it is read, however many records). */
export interface FindResult {
  kind: string
  /** Cached records that match (all of them, not only those printed). */
  count: number
  /**
   * The cached records as the API gave them, from --offset, at most --limit; with --similar each
   * carries `similarity`, its Tanimoto similarity to the query (as the API's own similarity search
   * answers).
   */
  records: Record<string, unknown>[]
  /** With a structure search: matching molecules skipped because their structure is unparseable. */
  skippedUnparseable?: number
}

export const findCommand: Command = {
  name: 'find',
  summary:
    'List or search cached records of a vault (molecules unless KIND is given), offline; structure searches of molecules too.',
  usage: `vault-desk find ${listQuestionUsage} [--offset N] [--limit N] [--json]\n       vault-desk find ${savedSearchUsage} [--offset N] [--limit N] [--json]`,
  options: {
    ...listQuestionOptions,
    ...savedSearchOptions,
    limit: { type: 'string' },
    offset: { type: 'string' },
  },
  async run(context) {
    const saved = context.values.saved !== undefined
    if (!saved && context.values['translatable-part'] !== undefined) {
      throw new AppError('invalid_argument', '--translatable-part goes with --saved NAME.')
    }
    const typed = saved ? undefined : readListQuestion(context, 'find')
    const offset = countOption(context.values.offset, '--offset', 0) ?? 0
    const limit = countOption(context.values.limit, '--limit', 1)
    const { runtime } = chooseConnection(context)
    const services = context.services()
    const asked = typed ?? readSavedSearchQuestion(context, services, runtime.id)
    await prepareListQuestion(context, services, runtime.id, asked)
    const { vaultId, question } = asked
    const pages = services.exports.pages(runtime.id, vaultId, question, {
      offset,
      ...(limit !== undefined ? { limit } : {}),
    })
    const output = new ExportOutput(standardOutput(context.io).stream)
    const structured = question.structure !== undefined
    let started = false
    let skipped = 0
    for await (const page of pages) {
      const records = page.rows.map((row) => {
        const score = row.id === null ? undefined : page.scores?.[String(row.id)]
        return page.scores ? { ...row.json, similarity: score ?? null } : row.json
      })
      if (!started) {
        started = true
        skipped = page.skippedUnparseable ?? 0
        const shown = Math.max(Math.min(limit ?? Infinity, page.total - offset), 0)
        await output.write(
          context.json
            ? `{\n  "kind": ${JSON.stringify(page.kind)},\n  "count": ${page.total},\n  "records": [`
            : `${page.total} ${page.kind}${shownRange(offset, shown, page.total)}\n`,
        )
        if (context.json && records.length > 0) await output.write('\n')
      } else if (context.json && records.length > 0) {
        await output.write(',\n')
      }
      await output.write(
        context.json
          ? records
              .map((record) => `    ${JSON.stringify(record, null, 2).replaceAll('\n', '\n    ')}`)
              .join(',\n')
          : records.map(humanLine).join(''),
      )
    }
    if (!started) throw new AppError('internal', 'The list gave no first page.')
    if (context.json) {
      const skippedMember = structured ? `,\n  "skippedUnparseable": ${skipped}` : ''
      await output.write(`\n  ]${skippedMember}\n}\n`)
    } else if (skipped > 0) {
      await output.write(`${skipped} molecule(s) skipped: their structure could not be parsed\n`)
    }
    return { document: null, human: () => '', streamed: true }
  },
}

/** "(first 50)", "(101 to 150)": which of the matching records are printed, when not all. */
function shownRange(offset: number, shown: number, total: number): string {
  if (shown === total) return ''
  if (shown === 0) return ' (none shown)'
  if (offset === 0) return ` (first ${shown})`
  return ` (${offset + 1} to ${offset + shown})`
}

function humanLine(record: Record<string, unknown>): string {
  const score = typeof record.similarity === 'number' ? `  ${record.similarity.toFixed(3)}` : ''
  return `  ${String(record.id)}  ${String(record.name ?? record.value ?? '')}${score}\n`
}
