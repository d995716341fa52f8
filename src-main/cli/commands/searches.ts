import path from 'node:path'
import { vaultRunFormats, type VaultRunFormat } from '../../../src-common/searches/vault-run.ts'
import type {
  SavedSearchSaved,
  SavedSearchSummary,
  SavedSearchVaultRun,
  SearchToSave,
} from '../../services/saved-searches-service.ts'
import type { Services } from '../../services/index.ts'
import { AppError, errorCodes, type ErrorCode } from '../../shared/app-error.ts'
import type { Command, CommandContext, CommandOutput } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { listQuestionOptions, listQuestionUsage, readListQuestion } from '../list-question.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery, type Delivery } from './outbox-delivery.ts'

/** What `vault-desk searches --json` prints. */
export interface SearchesReport {
  vaultId: number
  searches: SavedSearchSummary[]
}

/** What `vault-desk searches save --json` prints: the saved search queued, and its sending. */
export interface SearchSavedReport extends SavedSearchSaved {
  delivery: Delivery
}

/** The options of each action, refused with the others. */
const actionOptions = {
  run: ['on-vault', 'format', 'output'],
  save: ['project', ...Object.keys(listQuestionOptions).filter((name) => name !== 'vault')],
} as const

export const searchesCommand: Command = {
  name: 'searches',
  summary:
    "List a vault's saved searches from the cache: criteria in words, and whether each runs offline (find --saved NAME); run one on the vault, saving its file; or save a search in the vault (queued).",
  usage: [
    'vault-desk searches --vault ID [--json]',
    `       vault-desk searches run NAME --on-vault --format ${vaultRunFormats.join('|')} --output FILE --vault ID [--json]`,
    `       vault-desk searches save NAME --project P ${listQuestionUsage} [--json]`,
  ].join('\n'),
  options: {
    ...listQuestionOptions,
    'on-vault': { type: 'boolean' },
    format: { type: 'string' },
    output: { type: 'string', short: 'o' },
    project: { type: 'string', multiple: true },
  },
  syncsOrSends: ([action]) => action === 'save',
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'searches needs --vault ID.')
    const [action, ...rest] = context.positionals
    if (action !== undefined && action !== 'run' && action !== 'save') {
      throw new AppError(
        'invalid_argument',
        `searches takes no arguments but "run NAME" or "save NAME", got ${context.positionals.join(' ')}.`,
      )
    }
    refuseOptionsOfOtherActions(context, action ?? null)
    if (action === 'run') return runOnVault(context, vaultId, rest)
    if (action === 'save') return saveSearch(context, vaultId, rest)
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

/**
 * `searches save NAME --project P [the find options]`: the search `find` would run, saved in the
 * vault as a saved search of one project. Checked and queued by the service the window's Save
 * search dialog uses (`searches.save`: an unused name, a project of the vault, every part one a
 * saved search can hold, each problem named), then sent unless the app sends.
 */
async function saveSearch(
  context: CommandContext,
  vaultId: number,
  args: string[],
): Promise<CommandOutput> {
  const [name, ...kind] = args
  if (name === undefined || name.trim() === '') {
    throw new AppError(
      'invalid_argument',
      'searches save needs the new saved search’s NAME (quote a name with spaces).',
    )
  }
  const { question } = readListQuestion({ ...context, positionals: kind }, 'searches save')
  const { results, ...asked } = question
  const search: SearchToSave = { ...asked, ...(results ? { results: [...results] } : {}) }
  const project = projectOption(context.values.project)
  const { runtime } = chooseConnection(context)
  const services = context.services()
  const projects = services.searches.propose(runtime.id, vaultId, search).projects
  const saved = await services.searches.save(runtime.id, vaultId, {
    name,
    projectId: projectIdOf(project, projects, vaultId),
    search,
  })
  const delivery = await deliver(services, [services.outbox.item(saved.itemId)], context.holder)
  const report: SearchSavedReport = { ...saved, delivery }
  return {
    document: report,
    exitCode: deliveryExitCode(delivery),
    human: () => {
      const notes = saved.notes.map((note) => `  note: ${note}\n`).join('')
      return `Saved search '${saved.name}' queued: ${saved.words}\n${notes}${describeDelivery(delivery)}`
    },
  }
}

function projectOption(value: unknown): string {
  const given = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String)
  if (given.length !== 1) {
    throw new AppError(
      'invalid_argument',
      given.length === 0
        ? 'searches save needs --project P (an id or a name): a saved search belongs to exactly one project.'
        : `A saved search belongs to exactly one project: give --project once, not ${given.length} times.`,
    )
  }
  return given[0]!.trim()
}

/** A project by id (checked by the service with the rest) or by its name in the cache. */
function projectIdOf(
  project: string,
  projects: readonly { id: number; name: string }[],
  vaultId: number,
): number {
  if (/^\d+$/.test(project)) return Number(project)
  const wanted = project.toLocaleLowerCase()
  const found = projects.find((candidate) => candidate.name.toLocaleLowerCase() === wanted)
  if (found) return found.id
  const known = projects.map((candidate) => `${candidate.id} '${candidate.name}'`).join(', ')
  throw new AppError(
    'validation',
    `Vault ${vaultId} has no project named '${project}' in the cache; its projects: ${known || 'none (sync the vault?)'}.`,
  )
}

function refuseOptionsOfOtherActions(context: CommandContext, action: string | null): void {
  for (const [other, names] of Object.entries(actionOptions)) {
    if (other === action) continue
    for (const name of names) {
      if (context.values[name] !== undefined) {
        throw new AppError('invalid_argument', `--${name} goes with "searches ${other} NAME".`)
      }
    }
  }
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
