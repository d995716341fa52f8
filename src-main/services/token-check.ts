import { ApiError, VaultClient, type Vault } from '../api/index.ts'
import { requireSecureUrl } from '../api/secure-url.ts'
import { AppError } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import type { ClientTuning } from './connection-runtime.ts'

/**
 * Checks a base URL and a token the way the service defines a valid token: GET /vaults answers.
 * Answers the vaults the token reaches; every failure is an AppError a person can act on.
 */
export async function checkToken(
  baseUrl: string,
  token: string,
  context: { log: Logger; redactor: Redactor; tuning: ClientTuning },
): Promise<Vault[]> {
  context.redactor.add(token.trim())
  const client = new VaultClient({
    // The vault's slots, shared with every other request to it: it counts per user, and a token
    // being checked may well be a user's second (interactive requests go first).
    ...context.tuning,
    baseUrl,
    token: token.trim(),
    logger: context.log,
    redactor: context.redactor,
    retry: { ...context.tuning.retry, attempts: 2 },
  })
  try {
    return await client.vaults.list({ priority: 'interactive' })
  } catch (error) {
    throw explain(error, baseUrl)
  }
}

/** Trims the URL and its trailing slashes; refuses what the client would refuse, saying why. */
export function normalizeBaseUrl(input: string): string {
  const trimmed = input.trim().replace(/\/+$/, '')
  try {
    requireSecureUrl(trimmed, 'connection')
  } catch (error) {
    throw new AppError('invalid_argument', `The base URL cannot be used: ${reasonOf(error)}`, {
      cause: error,
    })
  }
  return trimmed
}

function explain(error: unknown, baseUrl: string): unknown {
  if (!(error instanceof ApiError)) return error
  switch (error.kind) {
    case 'insecure':
      return new AppError('invalid_argument', `The base URL cannot be used: ${reasonOf(error)}`, {
        cause: error,
      })
    case 'authentication':
      return new AppError(
        'authentication',
        `${baseUrl} refused this API token (401). Check that it was copied whole and is still valid.`,
        { cause: error },
      )
    case 'network':
      return new AppError('offline', `Cannot reach ${baseUrl}: ${reasonOf(error)}`, {
        cause: error,
      })
    case 'not_found':
      return new AppError(
        'invalid_argument',
        `${baseUrl} has no vault API (GET /vaults answered 404). The base URL ends with the version segment, for example https://host/api/v1.`,
        { cause: error },
      )
    default:
      return new AppError(error.code, `${baseUrl} could not check the token: ${reasonOf(error)}`, {
        cause: error,
      })
  }
}

/** An ApiError's message without the operation it starts with. */
function reasonOf(error: unknown): string {
  return (error as Error).message.replace(/^[\w.]+: /, '')
}
