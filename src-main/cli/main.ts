/**
 * The `vault-desk` command-line host: parses arguments, builds the services on demand, prints one
 * JSON document on stdout with --json (human progress always goes to stderr), and exits with a
 * documented code.
 */
import { parseArgs } from 'node:util'
import packageJson from '../../package.json' with { type: 'json' }
import { toErrorValue } from '../shared/app-error.ts'
import { createServices, type Services } from '../services/index.ts'
import type { CliIo } from './cli-io.ts'
import type { Command, OptionSpec } from './command.ts'
import { commands } from './commands/index.ts'
import { exitCodeForError, exitCodes, type ExitCode } from './exit-codes.ts'
import { DataFolderBusy, holdDataFolder, lockHelp, lockOptions } from './data-folder-access.ts'
import type { DataFolderLock } from '../shared/data-folder-lock.ts'

const globalOptions: OptionSpec = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  json: { type: 'boolean' },
  'data-dir': { type: 'string' },
  connection: { type: 'string' },
  'base-url': { type: 'string' },
  'token-env': { type: 'string' },
  ...lockOptions,
}

export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const commandName = findCommandName(argv)
  const command = commands.find((candidate) => candidate.name === commandName)

  if (commandName !== undefined && !command) {
    io.stderr(`vault-desk: unknown command '${commandName}'. Run 'vault-desk --help'.\n`)
    return exitCodes.usage
  }

  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...globalOptions, ...command?.options },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    io.stderr(`vault-desk: ${(error as Error).message}\n${usageLine(command)}`)
    return exitCodes.usage
  }
  const { values } = parsed
  const json = values.json === true

  if (values.version) {
    io.stdout(
      json ? `${JSON.stringify({ version: packageJson.version })}\n` : `${packageJson.version}\n`,
    )
    return exitCodes.ok
  }
  if (values.help || !command) {
    const text = command ? commandHelp(command) : generalHelp()
    if (!command && !values.help) {
      io.stderr(text)
      return exitCodes.usage
    }
    io.stdout(text)
    return exitCodes.ok
  }

  let services: Services | undefined
  let lock: DataFolderLock | undefined
  let holder: string | undefined
  const positionals = parsed.positionals.slice(1)
  try {
    if (command.syncsOrSends?.(positionals)) {
      try {
        lock = await holdDataFolder(command.name, values, io)
      } catch (error) {
        const waiting = values.wait === true || values['wait-timeout'] !== undefined
        if (!(error instanceof DataFolderBusy) || !command.queuesForTheHolder || waiting)
          throw error
        holder = error.holder
        io.stderr(`vault-desk ${command.name}: queued only: ${holder} sends it.\n`)
      }
    }
    const output = await command.run({
      values,
      positionals,
      json,
      io,
      ...(holder ? { holder } : {}),
      services: () =>
        (services ??= createServices({
          host: 'cli',
          env: io.env,
          ...(typeof values['data-dir'] === 'string' ? { dataDir: values['data-dir'] } : {}),
          ...(lock ? { dataFolderLock: lock } : {}),
        })),
    })
    if (!output.streamed) {
      io.stdout(
        json ? `${JSON.stringify(output.document, null, 2)}\n` : output.human(output.document),
      )
    }
    return output.exitCode ?? exitCodes.ok
  } catch (error) {
    if (error instanceof DataFolderBusy) {
      io.stderr(`vault-desk ${command.name}: ${error.message}\n`)
      if (json) {
        const value = { code: 'data_folder_busy', message: error.message, holder: error.holder }
        io.stdout(`${JSON.stringify({ error: value }, null, 2)}\n`)
      }
      return exitCodes.dataFolderBusy
    }
    const value = toErrorValue(error)
    io.stderr(`vault-desk ${command.name}: ${value.message}\n`)
    if (json) io.stdout(`${JSON.stringify({ error: value }, null, 2)}\n`)
    return exitCodeForError(error, value.code)
  } finally {
    await services?.close()
    lock?.release()
  }
}

/** The first positional argument, skipping the values of global options that take one. */
function findCommandName(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!
    if (arg === '--') return argv[index + 1]
    if (!arg.startsWith('-')) return arg
    const option = globalOptions[arg.replace(/^--?/, '')]
    if (option?.type === 'string' && !arg.includes('=')) index++
  }
  return undefined
}

function usageLine(command: Command | undefined): string {
  return command ? `usage: ${command.usage}\n` : `Run 'vault-desk --help'.\n`
}

function commandHelp(command: Command): string {
  return `${command.summary}\n\nusage: ${command.usage}\n\n${globalHelp}`
}

const globalHelp = `Options for every command:
  --json            print one JSON document on stdout (progress still goes to stderr)
  --data-dir DIR    the data directory (default: VAULT_DESK_DATA_DIR, else the OS convention)
  --connection NAME use this saved connection
  --base-url URL --token-env VAR
                    use this server with the token in environment variable VAR, saving nothing
                    (tokens are never taken as arguments)
  -h, --help        show help
  -V, --version     show the version
${lockHelp}
Exit codes: 0 ok, 1 failure, 2 usage error, 3 offline or unreachable, 4 authentication,
5 another Vault Desk process (the app) syncs this data folder, 6 a cache, the outbox or the app
database was written by a newer Vault Desk (left untouched: use that version).
`

function generalHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length))
  const list = commands
    .map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`)
    .join('\n')
  return `Vault Desk ${packageJson.version}: your vault data, offline.

usage: vault-desk <command> [options]

Commands:
${list}

${globalHelp}`
}
