import path from 'node:path'
import { vaultRunFormats, type VaultRunFormat } from '../../../src-common/searches/vault-run.ts'
import type {
  SavedSearchSummary,
  SavedSearchVaultRun,
} from '../../services/saved-searches-service.ts'
import type { Services } from '../../services/index.ts'
import { AppError, errorCodes, type ErrorCode } from '../../shared/app-error.ts'
import type { Command, CommandContext, CommandOutput } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'

/** What `vault-desk searches --json` prints. */
export interface SearchesReport {
  vaultId: number
  searches: SavedSearchSummary[]
}

export const searchesCommand: Command = {
  name: 'searches',
  summary:
    "List a vault's saved searches from the cache: criteria in words, and whether each runs offline (find --saved NAME); or run one on the vault, saving its file.",
  usage: `vault-desk searches --vault ID [--json]\n       vault-desk searches run NAME --on-vault --format ${vaultRunFormats.join('|')} --output FILE --vault ID [--json]`,
  options: {
    vault: { type: 'string' },
    'on-vault': { type: 'boolean' },
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
  },
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'searches needs --vault ID.')
    const [action, ...rest] = context.positionals
    if (action === 'run') return runOnVault(context, vaultId, rest)
    if (action !== undefined) {
      throw new AppError(
        'invalid_argument',
        `searches takes no arguments but "run NAME", got ${context.positionals.join(' ')}.`,
      )
    }
    for (const name of ['on-vault', 'format', 'output']) {
      if (context.values[name] !== undefined) {
        throw new AppError('invalid_argument', `--${name} goes with "searches run NAME".`)
      }
    }
    const { runtime } = chooseConnection(context)
    const searches = context.services().searches.list(runtime.id, vaultId)
    const document: SearchesReport = { vaultId, searches }
    return { document, human: (report) => humanReport(report as SearchesReport) }
  },
}

/**
 * `searches run NAME --on-vault`: the vault runs the saved search as an export, polled at the
 * spec's interval, and its file is saved to --output (whole, or not at all). Progress goes to
 * stderr; Ctrl-C cancels the export on the vault and leaves no file.
 */
async function runOnVault(
  context: CommandContext,
  vaultId: number,
  names: string[],
): Promise<CommandOutput> {
  if (names.length !== 1) {
    throw new AppError(
      'invalid_argument',
      `searches run takes one saved search name (quote a name with spaces), got ${names.length}.`,
    )
  }
  if (context.values['on-vault'] !== true) {
    throw new AppError(
      'invalid_argument',
      'searches run runs a saved search on the vault: give --on-vault (offline, use find --saved NAME).',
    )
  }
  const format = formatOption(context.values.format)
  const output = context.values.output
  if (typeof output !== 'string' || output.trim() === '') {
    throw new AppError('invalid_argument', 'searches run --on-vault needs --output FILE.')
  }
  const { runtime } = chooseConnection(context)
  const services = context.services()
  const ended = await followRun(
    context,
    services,
    (search) =>
      services.searches.startVaultRun(runtime.id, vaultId, {
        search,
        format,
        path: path.resolve(output),
      }),
    names[0]!,
  )
  if (ended.state === 'completed') {
    return {
      document: ended,
      human: (run) => {
        const { name, path: file, bytes } = run as SavedSearchVaultRun
        return `Saved search '${name}' run on the vault: ${bytes} bytes saved to ${file}\n`
      },
    }
  }
  const error = ended.error ?? { code: 'cancelled', message: 'The run was cancelled.' }
  const code: ErrorCode = (errorCodes as readonly string[]).includes(error.code)
    ? (error.code as ErrorCode)
    : 'internal'
  throw new AppError(
    code,
    `Saved search '${ended.name}' did not run on the vault: ${error.message}`,
  )
}

/** Starts a run, reports it on stderr until it ends, and cancels it on Ctrl-C or TERM. */
async function followRun(
  context: CommandContext,
  services: Services,
  start: (search: string) => Promise<SavedSearchVaultRun>,
  search: string,
): Promise<SavedSearchVaultRun> {
  const seen: SavedSearchVaultRun[] = []
  let settle: ((run: SavedSearchVaultRun) => void) | null = null
  let runId: string | null = null
  let lastLine = ''
  const stopEvents = services.events.on('searches.vaultRun', (run) => {
    if (runId === null) seen.push(run)
    else if (run.runId === runId) note(run)
  })
  const note = (run: SavedSearchVaultRun) => {
    const line = progressLine(run)
    if (line !== lastLine) context.io.stderr(`${line}\n`)
    lastLine = line
    if (isEnded(run)) settle?.(run)
  }
  const cancel = () => {
    if (runId !== null) services.searches.cancelVaultRun(runId)
  }
  process.once('SIGINT', cancel)
  process.once('SIGTERM', cancel)
  try {
    const ended = new Promise<SavedSearchVaultRun>((resolve) => (settle = resolve))
    const started = await start(search)
    runId = started.runId
    for (const run of seen) if (run.runId === runId) note(run)
    return await ended
  } finally {
    stopEvents()
    process.off('SIGINT', cancel)
    process.off('SIGTERM', cancel)
  }
}

function isEnded(run: SavedSearchVaultRun): boolean {
  return run.state === 'completed' || run.state === 'failed' || run.state === 'cancelled'
}

function progressLine(run: SavedSearchVaultRun): string {
  switch (run.state) {
    case 'waiting':
      return `waiting for an export place (3 at a time)`
    case 'queued':
      return `queued on the vault${run.queuePosition === null ? '' : ` at position ${run.queuePosition}`}`
    case 'running':
      return `running on the vault (export ${run.exportId ?? '?'})`
    case 'downloading':
      return `downloading: ${run.bytes} bytes`
    default:
      return run.state
  }
}

function formatOption(value: unknown): VaultRunFormat {
  const format = vaultRunFormats.find((candidate) => candidate === value)
  if (format) return format
  throw new AppError(
    'invalid_argument',
    value === undefined
      ? `searches run --on-vault needs --format: ${vaultRunFormats.join(', ')}.`
      : `--format takes ${vaultRunFormats.join(', ')} (the vault's formats), not ${JSON.stringify(value)}.`,
  )
}

function humanReport({ vaultId, searches }: SearchesReport): string {
  if (searches.length === 0) return `Vault ${vaultId} has no saved searches in the cache.\n`
  return searches
    .map((search) => {
      const runs = search.runsOffline ? 'runs offline' : 'does not run offline as saved'
      const project = search.project ? `, project ${search.project.name ?? search.project.id}` : ''
      const waiting = search.pending
        ? `, waiting in the outbox as item ${search.pending.itemId} (${search.pending.state})`
        : ''
      const lines = [
        `${search.id ?? '-'}  ${search.name}  (${runs}${project}${waiting})`,
        `    ${search.words}`,
      ]
      for (const part of search.untranslated) {
        lines.push(`    not offline: ${part.words}: ${part.reason}`)
      }
      return `${lines.join('\n')}\n`
    })
    .join('')
}
