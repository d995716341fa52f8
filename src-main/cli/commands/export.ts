import path from 'node:path'
import { formatBytes } from '../../../src-common/format/numbers.ts'
import {
  exportFormats,
  formatInfo,
  isExportFormat,
  type ExportFormat,
} from '../../export/formats.ts'
import type {
  ExportRequest,
  ExportSummary,
  ResultsExportRequest,
} from '../../services/export-service.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command, CommandContext } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import {
  listQuestionOptions,
  listQuestionUsage,
  prepareListQuestion,
  readListQuestion,
  standardOutput,
  throttled,
} from '../list-question.ts'
import { completeReadoutIndex } from '../readout-index-progress.ts'
import {
  readResultsQuestion,
  resultsQuestionOptions,
  resultsQuestionUsage,
} from '../results-question.ts'

export const exportCommand: Command = {
  name: 'export',
  summary:
    'Export a list or search of cached records (molecules unless KIND is given), or a results table (--results), to CSV, SD file, Excel or JSON Lines, offline, streamed.',
  usage: `vault-desk export ${listQuestionUsage} ${resultsQuestionUsage} --format ${exportFormats.join('|')} [--all-fields] [--bom] [--output FILE] [--json]`,
  options: {
    ...listQuestionOptions,
    ...resultsQuestionOptions,
    format: { type: 'string' },
    'all-fields': { type: 'boolean' },
    bom: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  },
  async run(context) {
    const format = formatOption(context.values.format)
    const asked = readListQuestion(context, 'export')
    const file = typeof context.values.output === 'string' ? context.values.output : undefined
    if (context.values.bom === true && format !== 'csv') {
      throw new AppError('invalid_argument', '--bom goes with --format csv.')
    }
    const stdout = file === undefined ? standardOutput(context.io) : null
    if (stdout && context.json) {
      throw new AppError(
        'invalid_argument',
        '--json prints a summary on standard output, where the export would go: give --output FILE too.',
      )
    }
    if (stdout?.terminal && formatInfo[format].binary) {
      throw new AppError(
        'invalid_argument',
        `An ${formatInfo[format].label} is binary: give --output FILE, or redirect standard output to a file.`,
      )
    }
    const results = context.values.results === true
    if (!results) {
      const stray = Object.keys(resultsQuestionOptions).find(
        (name) => context.values[name] !== undefined,
      )
      if (stray) throw new AppError('invalid_argument', `--${stray} goes with --results.`)
    } else if (context.values['all-fields'] === true) {
      throw new AppError(
        'invalid_argument',
        '--all-fields goes with lists: a results table has the columns it names.',
      )
    }
    const { runtime } = chooseConnection(context)
    const services = context.services()
    await prepareListQuestion(context, services, runtime.id, asked)
    if (results)
      completeReadoutIndex(context, services.runtimes.get(runtime.id).cache, asked.vaultId)
    const summary = await cancellable(async (signal) => {
      const options = { signal, onProgress: progressOnStderr(context, asked.question.kind) }
      if (results) {
        const catalogue = services.results.catalogue(runtime.id, asked.vaultId).protocols
        const request: ResultsExportRequest = {
          connectionId: runtime.id,
          vaultId: asked.vaultId,
          question: readResultsQuestion(context, catalogue, asked),
          format,
          ...(context.values.bom === true ? { bom: true } : {}),
        }
        return stdout
          ? services.exports.writeResults(request, stdout.stream, options)
          : services.exports.resultsToFile(request, path.resolve(file!), options)
      }
      const request: ExportRequest = {
        connectionId: runtime.id,
        vaultId: asked.vaultId,
        question: asked.question,
        format,
        columns: context.values['all-fields'] === true ? 'all' : 'view',
        ...(context.values.bom === true ? { bom: true } : {}),
      }
      return stdout
        ? services.exports.write(request, stdout.stream, options)
        : services.exports.toFile(request, path.resolve(file!), options)
    })
    const told = `${summary.records} ${summary.kind} exported${summary.path ? ` to ${summary.path}` : ''} (${formatInfo[format].label}, ${formatBytes(summary.bytes)})\n`
    const notes = summary.notes.map((note) => `${note}\n`).join('')
    if (stdout) {
      context.io.stderr(`${told}${notes}`)
      return { document: summary, human: () => '', streamed: true }
    }
    context.io.stderr(notes)
    return { document: summary, human: () => told }
  },
}

function formatOption(value: unknown): ExportFormat {
  if (isExportFormat(value)) return value
  throw new AppError(
    'invalid_argument',
    value === undefined
      ? `export needs --format: ${exportFormats.join(', ')}.`
      : `--format takes ${exportFormats.join(', ')}, not ${JSON.stringify(value)}.`,
  )
}

/** Ctrl-C (or a TERM) cancels the export, which then leaves no file behind. */
async function cancellable(
  work: (signal: AbortSignal) => Promise<ExportSummary>,
): Promise<ExportSummary> {
  const abort = new AbortController()
  const stop = (): void => abort.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    return await work(abort.signal)
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

function progressOnStderr(
  context: CommandContext,
  kind: string,
): (written: number, total: number) => void {
  return throttled((written: number, total: number) => {
    context.io.stderr(`exported ${written}/${total} ${kind}\n`)
  })
}
