import { AppError } from '../shared/app-error.ts'
import type { ConnectionRuntime } from '../services/connection-runtime.ts'
import type { Services } from '../services/index.ts'
import type { CommandContext } from './command.ts'

/** The connection a command works on, and whether it is saved (headless ones are not). */
export interface ChosenConnection {
  runtime: ConnectionRuntime
  name: string
  saved: boolean
}

/**
 * `--connection NAME`, or `--base-url URL --token-env VAR` (nothing saved), or, without either,
 * the only saved connection. Tokens are read from the environment, never from arguments.
 */
export function chooseConnection(context: CommandContext): ChosenConnection {
  const services = context.services()
  const { values } = context
  const name = stringOption(values.connection)
  const baseUrl = stringOption(values['base-url'])
  if (name !== undefined && baseUrl !== undefined) {
    throw new AppError('invalid_argument', 'Give either --connection or --base-url, not both.')
  }
  if (baseUrl !== undefined) {
    const token = tokenFromEnvironment(context)
    return {
      runtime: services.runtimes.headless(baseUrl.replace(/\/+$/, ''), token),
      name: baseUrl,
      saved: false,
    }
  }
  if (name !== undefined) return saved(services, name)
  const all = services.connections.list()
  if (all.length === 1) return saved(services, all[0]!.name)
  throw new AppError(
    'invalid_argument',
    all.length === 0
      ? 'No connection is saved: add one with vault-desk connect, or give --base-url and --token-env.'
      : `Choose a connection with --connection: ${all.map((record) => record.name).join(', ')}.`,
  )
}

/** The token named by --token-env; required with --base-url. */
export function tokenFromEnvironment(context: CommandContext): string {
  const variable = stringOption(context.values['token-env'])
  if (variable === undefined) {
    throw new AppError(
      'invalid_argument',
      '--base-url needs --token-env VAR, the environment variable that holds the API token.',
    )
  }
  const token = context.io.env[variable]?.trim()
  if (!token) {
    throw new AppError('invalid_argument', `The environment variable ${variable} holds no token.`)
  }
  return token
}

function saved(services: Services, name: string): ChosenConnection {
  const record = services.connections.byName(name)
  if (!record) {
    const names = services.connections.list().map((item) => item.name)
    throw new AppError(
      'invalid_argument',
      `No connection is named "${name}".${names.length ? ` Saved: ${names.join(', ')}.` : ''}`,
    )
  }
  return { runtime: services.runtimes.get(record.id), name: record.name, saved: true }
}

export function stringOption(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}
