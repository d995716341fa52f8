import type { z } from 'zod'
import { AppError, safeErrorValue, toErrorValue } from '../shared/app-error.ts'
import type { Logger } from '../shared/logger.ts'
import { fail, ok, type Result } from '../shared/result.ts'
import { isRequestChannel, type RequestChannel } from './channels.ts'
import { requestSchemas, type RequestResult, type ValidatedArgs } from './contract.ts'

export type DomainHandlers<C extends RequestChannel> = {
  [K in C]: (args: ValidatedArgs<K>) => Promise<RequestResult<K>> | RequestResult<K>
}

export type RequestHandlers = DomainHandlers<RequestChannel>

/**
 * Answers one request from any host: refuses unknown channels, validates, never throws. Every
 * error it answers is redacted and capped (shared/error-text.ts), whatever text it carries.
 */
export type Dispatch = (channel: unknown, args: unknown) => Promise<Result<unknown>>

export function createDispatcher(handlers: RequestHandlers, log: Logger): Dispatch {
  return async (channel, args) => {
    if (!isRequestChannel(channel)) {
      log.warn('refused request on an unknown channel', { channel: String(channel).slice(0, 80) })
      return fail(
        safeErrorValue({
          code: 'unknown_channel',
          message: `Unknown request channel: ${String(channel)}`,
        }),
      )
    }
    const parsed = requestSchemas[channel].safeParse(args ?? {})
    if (!parsed.success) {
      return fail(
        safeErrorValue({
          code: 'invalid_argument',
          message: describeIssues(channel, parsed.error),
        }),
      )
    }
    try {
      const handler = handlers[channel] as (args: unknown) => unknown
      return ok(await handler(parsed.data))
    } catch (error) {
      const value = toErrorValue(error)
      if (!(error instanceof AppError)) {
        log.error('request failed unexpectedly', { channel, error: errorDetails(error) })
      }
      return fail(value)
    }
  }
}

function describeIssues(channel: string, error: z.ZodError): string {
  const parts = error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.join('.') : 'argument'
    return `${where}: ${issue.message}`
  })
  return `Invalid argument for ${channel}: ${parts.join('; ')}`
}

function errorDetails(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}
