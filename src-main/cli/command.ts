import type { parseArgs, ParseArgsConfig } from 'node:util'
import type { Services } from '../services/index.ts'
import type { CliIo } from './cli-io.ts'
import type { ExitCode } from './exit-codes.ts'

export type OptionSpec = NonNullable<ParseArgsConfig['options']>

export interface CommandContext {
  /** Options after parsing, global ones included. */
  values: ReturnType<typeof parseArgs>['values']
  positionals: string[]
  json: boolean
  io: CliIo
  /** Built on first use, so that `--help` never touches the data directory. */
  services: () => Services
  /**
   * The process that holds the data folder and sends its outbox, when a command that queues for
   * it (`queuesForTheHolder`) runs beside it: the command queues and leaves the sending to it.
   */
  holder?: string
}

/** What a command yields: printed as JSON with --json, else as text by `human`. */
export interface CommandOutput<T = unknown> {
  document: T
  human: (document: T) => string
  /** The process's exit code when the command ran but did not fully succeed (default 0). */
  exitCode?: ExitCode
  /** The command wrote its output to stdout itself, as it went (long lists): nothing is added. */
  streamed?: boolean
}

export interface Command {
  name: string
  summary: string
  usage: string
  options: OptionSpec
  /**
   * Whether a run with these positionals syncs or sends, and so must hold the data folder's lock
   * (data-folder-access.ts). Commands without it only read and run beside the process that syncs.
   */
  syncsOrSends?: (positionals: readonly string[]) => boolean
  /**
   * When another process holds the data folder (and --wait was not given), the command still
   * queues its work and leaves the sending to that process, as an instrument script beside the
   * open app expects, rather than refusing.
   */
  queuesForTheHolder?: boolean
  run(context: CommandContext): Promise<CommandOutput>
}
