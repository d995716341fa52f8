import path from 'node:path'
import type { ImportCheckReport } from '../../../src-common/intake/import-check.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { exitCodes } from '../exit-codes.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery, type Delivery } from './outbox-delivery.ts'

const usage =
  'vault-desk import --vault V FILE --project P [--mapping-template T] [--protocol ID] ' +
  '[--check | --queue-anyway] [--connection NAME] [--json]'

/** Problems printed in words; the JSON document has every listed one. */
const printedProblems = 50

/** An id when the text is a whole number, else a name the server resolves. */
function idOrName(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value
}

function protocolOption(value: unknown): number {
  const text = stringOption(value)
  if (text === undefined) return 0
  if (!/^\d+$/.test(text) || Number(text) === 0) {
    throw new AppError(
      'invalid_argument',
      `--protocol takes a protocol id, not ${JSON.stringify(text)}.`,
    )
  }
  return Number(text)
}

export interface ImportDocument {
  /** The local check, when the file was checked (a mapping template was given). */
  check: ImportCheckReport | null
  /** Whether the import was queued; false after `--check`, or when errors refused it. */
  queued: boolean
  delivery?: Delivery
}

/**
 * `vault-desk import`: checks a data import (CSV, SDF, XLSX) against the cache when a mapping
 * template is named, then queues it into a project and sends what is queued unless the app does.
 * A file with errors is not queued unless `--queue-anyway`; `--check` checks and queues nothing.
 */
export const importCommand: Command = {
  name: 'import',
  summary:
    'Check a data import (CSV, SDF, XLSX) against the cache, queue it, and send it when online.',
  usage,
  options: {
    vault: { type: 'string' },
    project: { type: 'string' },
    'mapping-template': { type: 'string' },
    protocol: { type: 'string' },
    check: { type: 'boolean' },
    'queue-anyway': { type: 'boolean' },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    const project = stringOption(context.values.project)
    const checkOnly = context.values.check === true
    const queueAnyway = context.values['queue-anyway'] === true
    if (vaultId === undefined || (project === undefined && !checkOnly)) {
      throw new AppError(
        'invalid_argument',
        `import needs --vault V and --project P. usage: ${usage}`,
      )
    }
    if (checkOnly && queueAnyway) {
      throw new AppError('invalid_argument', '--check queues nothing: leave out --queue-anyway.')
    }
    const [file, ...extra] = context.positionals
    if (file === undefined || extra.length > 0) {
      throw new AppError('invalid_argument', `import takes one FILE. usage: ${usage}`)
    }
    const template = stringOption(context.values['mapping-template'])
    const protocolId = protocolOption(context.values.protocol)
    if (checkOnly && template === undefined) {
      throw new AppError(
        'invalid_argument',
        '--check compares the file with its mapping template: give --mapping-template T.',
      )
    }
    const filePath = path.resolve(file)
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const check =
      template === undefined
        ? null
        : await services.importChecker.check({
            connectionId: runtime.id,
            vaultId,
            filePath,
            protocolId,
            mappingTemplate: idOrName(template),
          })
    const refused = check !== null && check.errors > 0 && !queueAnyway
    if (checkOnly || refused) {
      const document: ImportDocument = { check, queued: false }
      return {
        document,
        exitCode: check!.errors > 0 ? exitCodes.failure : exitCodes.ok,
        human: () =>
          `${describeCheck(check!)}\n` +
          (checkOnly
            ? check!.errors > 0
              ? 'The file has errors: the vault would refuse or misread it.'
              : 'The file can be imported.'
            : 'Not queued: fix the errors, or queue the file as it is with --queue-anyway.'),
      }
    }
    // What the check found is progress beside the queueing: on stderr, as other progress.
    if (check !== null && check.problems.length > 0 && !context.json) {
      context.io.stderr(`${describeCheck(check)}\n`)
    }
    const items = await services.outbox.queue({
      connectionId: runtime.id,
      vaultId,
      operation: 'slurp.create',
      file: filePath,
      payload: {
        project: idOrName(project!),
        ...(template !== undefined ? { mapping_template: idOrName(template) } : {}),
      },
    })
    const delivery = await deliver(services, items, context.holder)
    const document: ImportDocument = { check, queued: true, delivery }
    return {
      document,
      exitCode: deliveryExitCode(delivery),
      human: () => describeDelivery(delivery),
    }
  },
}

/** The report in words: what was read, then each problem on a line of its own. */
export function describeCheck(report: ImportCheckReport): string {
  const read = [
    report.format?.toUpperCase() ?? 'file',
    `${report.rows} row${report.rows === 1 ? '' : 's'}`,
    ...(report.encoding ? [report.encoding] : []),
    ...(report.delimiter
      ? [`delimiter ${report.delimiter === '\t' ? 'tab' : `"${report.delimiter}"`}`]
      : []),
  ].join(', ')
  const lines = [
    `${report.fileName} (${read}): ${report.errors} error${report.errors === 1 ? '' : 's'}, ` +
      `${report.warnings} warning${report.warnings === 1 ? '' : 's'}`,
  ]
  for (const problem of report.problems.slice(0, printedProblems)) {
    const where = [
      problem.row !== null ? `row ${problem.row}` : null,
      problem.column !== null ? `column "${problem.column}"` : null,
    ]
      .filter(Boolean)
      .join(', ')
    lines.push(
      `  ${problem.severity === 'error' ? 'error  ' : 'warning'} ${where ? `${where}: ` : ''}${problem.message}`,
    )
  }
  const total = report.errors + report.warnings
  if (total > printedProblems) {
    const counts = Object.entries(report.counts)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ')
    lines.push(
      `  … ${total - Math.min(printedProblems, report.problems.length)} more (${counts}); --json lists up to ${report.problems.length}`,
    )
  }
  return lines.join('\n')
}
