import path from 'node:path'
import type { WatchActivity } from '../../shared/events.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Services } from '../../services/index.ts'
import type { ConnectionRuntime } from '../../services/connection-runtime.ts'
import type { Command, CommandContext } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'

const usage =
  'vault-desk watch --vault V --folder DIR --protocol P --mapping-template T [--project P] [--person NAME] [--place PLACE] [--conditions TEXT] [--settle SECONDS] [--connection NAME] [--json]'

/** An id when the text is a whole number, else a name. */
function idOrName(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value
}

/**
 * `vault-desk watch`: watches an instrument's folder until stopped (SIGINT or SIGTERM), and
 * queues each new CSV, SD file or workbook as an import once it has settled and passed the
 * local check; a file with errors is held for a decision in the app. Prints one line per thing
 * it did (JSON lines with --json). Beside the open app it queues and leaves the sending to it.
 */
export const watchCommand: Command = {
  name: 'watch',
  summary:
    "Watch an instrument's folder and queue each new file (CSV, SDF, XLSX) as an import once it has settled and passed the local check; runs until stopped.",
  usage,
  options: {
    vault: { type: 'string' },
    folder: { type: 'string' },
    protocol: { type: 'string' },
    'mapping-template': { type: 'string' },
    project: { type: 'string' },
    person: { type: 'string' },
    place: { type: 'string' },
    conditions: { type: 'string' },
    settle: { type: 'string' },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const { values } = context
    const vaultId = vaultIdOption(values.vault)
    const folder = stringOption(values.folder)
    const protocol = stringOption(values.protocol)
    const template = stringOption(values['mapping-template'])
    if (vaultId === undefined || !folder || !protocol || !template) {
      throw new AppError(
        'invalid_argument',
        `watch needs --vault, --folder, --protocol and --mapping-template. usage: ${usage}`,
      )
    }
    if (context.positionals.length > 0) {
      throw new AppError('invalid_argument', `watch takes no other arguments. usage: ${usage}`)
    }
    const settleMs = settleOption(values.settle)
    const project = stringOption(values.project)
    const print = printer(context)
    const stopped = stopSignal()
    try {
      const services = context.services()
      const { runtime, name } = chooseConnection(context)
      const off = services.events.on('watch.activity', (activity) => {
        if (activity.connectionId === runtime.id) print(activity)
      })
      try {
        if (context.holder === undefined) {
          await refreshCache(context, services, runtime, name, vaultId, stopped.signal)
          // Sends what it queues as it goes (and what was queued before).
          services.outbox.start()
        }
        if (stopped.signal.aborted) return done(stopped.name())
        const protocolId = protocolIdOf(runtime, vaultId, protocol)
        const running = await services.watch.watch(
          {
            connectionId: runtime.id,
            vaultId,
            folder: path.resolve(folder),
            protocolId,
            mappingTemplate: idOrName(template),
            project: project === undefined ? null : idOrName(project),
            run: runOptions(context),
          },
          settleMs === undefined ? {} : { settleMs },
        )
        await stopped.promise
        await running.stop()
        return done(stopped.name())
      } finally {
        off()
      }
    } finally {
      stopped.dispose()
    }
  },
}

function done(signal: string | null) {
  return {
    document: { stopped: signal },
    human: () => '',
    // Every line was printed as it happened.
    streamed: true,
  }
}

/** The cache the local check reads (protocols, molecules, batches) brought up to date first. */
async function refreshCache(
  context: CommandContext,
  services: Services,
  runtime: ConnectionRuntime,
  name: string,
  vaultId: number,
  signal: AbortSignal,
): Promise<void> {
  context.io.stderr(`Syncing vault ${vaultId} of ${name} before watching…\n`)
  const cancel = () => services.sync.cancel(runtime.id)
  signal.addEventListener('abort', cancel, { once: true })
  try {
    const result = await services.sync.run(runtime, { vaultIds: [vaultId] })
    if (result.outcome === 'needs_token') {
      throw new AppError('authentication', result.error?.message ?? 'The server refused the token.')
    }
    if (result.outcome !== 'completed' && result.outcome !== 'cancelled') {
      context.io.stderr(
        `The sync did not complete (${result.error?.message ?? result.outcome}): checking files against the local copy as it is.\n`,
      )
    }
  } finally {
    signal.removeEventListener('abort', cancel)
  }
}

/** `--protocol` by id or name, from the cache; an unknown one is refused with the names there. */
function protocolIdOf(runtime: ConnectionRuntime, vaultId: number, reference: string): number {
  const protocols = runtime.cache.list('protocols', vaultId, { limit: 1000 }).records
  const wanted = reference.trim()
  const found =
    protocols.find((protocol) => /^\d+$/.test(wanted) && protocol.id === Number(wanted)) ??
    protocols.find(
      (protocol) =>
        typeof protocol.name === 'string' && protocol.name.toLowerCase() === wanted.toLowerCase(),
    )
  if (found && typeof found.id === 'number') return found.id
  const names = protocols.map((protocol) => `${String(protocol.name)} (${String(protocol.id)})`)
  throw new AppError(
    'invalid_argument',
    names.length === 0
      ? `No protocol of vault ${vaultId} is in the local copy: run vault-desk sync first.`
      : `Vault ${vaultId} has no protocol ${JSON.stringify(reference)}. Its protocols: ${names.join(', ')}.`,
  )
}

function runOptions(context: CommandContext): {
  person?: string
  place?: string
  conditions?: string
} {
  const run: { person?: string; place?: string; conditions?: string } = {}
  for (const key of ['person', 'place', 'conditions'] as const) {
    const value = stringOption(context.values[key])
    if (value !== undefined) run[key] = value
  }
  return run
}

function settleOption(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const seconds =
    typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!(seconds >= 0.1 && seconds <= 3600)) {
    throw new AppError(
      'invalid_argument',
      `--settle takes the seconds a file must stay unchanged (0.1 to 3600), not ${JSON.stringify(value)}.`,
    )
  }
  return seconds * 1000
}

/** One JSON line per activity with --json, else one line of words. */
function printer(context: CommandContext): (activity: WatchActivity) => void {
  return (activity) => {
    if (context.json) {
      context.io.stdout(`${JSON.stringify(activity)}\n`)
      return
    }
    const time = new Date(activity.at).toLocaleTimeString()
    context.io.stdout(`${time} ${activity.type}: ${activity.message}\n`)
    if (activity.type === 'held' && activity.report) {
      for (const problem of activity.report.problems.slice(0, 10)) {
        const where = problem.row === null ? '' : `row ${problem.row}: `
        context.io.stdout(`    ${problem.severity} ${where}${problem.message}\n`)
      }
    }
  }
}

/** Resolves on the first SIGINT or SIGTERM; the watch then stops without losing a file. */
function stopSignal() {
  const controller = new AbortController()
  let received: string | null = null
  let resolve: () => void = () => {}
  const promise = new Promise<void>((settle) => (resolve = settle))
  const stop = (signal: NodeJS.Signals) => {
    received ??= signal
    controller.abort()
    resolve()
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  return {
    promise,
    signal: controller.signal,
    name: () => received,
    dispose: () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
    },
  }
}
