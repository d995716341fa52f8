/**
 * The command line of `npm run preview:web`. The port is free (any the system gives) unless the
 * person picks one: a fixed default would be one more thing for another account to find, and would
 * clash with a second preview.
 */
import { AppError } from '../shared/app-error.ts'

export const portVariable = 'VAULT_DESK_PREVIEW_PORT'

export const previewUsage = `Usage: npm run preview:web [-- --port N]

Serves Vault Desk to this machine's browser at an address with a token, printed here.
  --port N   listen on port N (0, the default, takes any free port); or set ${portVariable}.`

export interface PreviewOptions {
  /** 0 takes any free port. */
  port: number
  help: boolean
}

/** `argv` without node and the script; `--port` wins over the environment variable. */
export function parsePreviewOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): PreviewOptions {
  let portText: string | undefined
  let source = ''
  let help = false
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? ''
    if (argument === '--help' || argument === '-h') {
      help = true
    } else if (argument === '--port') {
      portText = argv[++index]
      if (portText === undefined) throw usageError('--port needs a number after it.')
      source = '--port'
    } else if (argument.startsWith('--port=')) {
      portText = argument.slice('--port='.length)
      source = '--port'
    } else {
      throw usageError(`Unknown argument "${argument}".`)
    }
  }
  if (portText === undefined && env[portVariable] !== undefined && env[portVariable] !== '') {
    portText = env[portVariable]
    source = portVariable
  }
  return { port: portText === undefined ? 0 : portNumber(portText, source), help }
}

function portNumber(text: string, source: string): number {
  const port = /^\d{1,5}$/.test(text.trim()) ? Number(text) : Number.NaN
  if (!Number.isInteger(port) || port > 65_535) {
    throw usageError(`${source} must be a whole number from 0 to 65535, not "${text}".`)
  }
  return port
}

function usageError(message: string): AppError {
  return new AppError('invalid_argument', `${message}\n\n${previewUsage}`)
}
