import { AppError } from '../../shared/app-error.ts'
import type { OutboxItemView } from '../../../src-common/outbox/item-view.ts'
import { outboxStates } from '../../../src-common/outbox/states.ts'
import type { Command, CommandContext } from '../command.ts'
import { exitCodes } from '../exit-codes.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { describeRecovery } from '../../sync/outbox/outbox-repairs.ts'
import { deliver, deliveryExitCode, describeDelivery } from './outbox-delivery.ts'

const usage =
  'vault-desk outbox list [--all] | retry ID | discard ID | send [--connection NAME | --base-url URL --token-env VAR] [--json]'

function itemIdOf(context: CommandContext, action: string): number {
  const [raw, ...extra] = context.positionals.slice(1)
  const id = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(id) || id < 1 || extra.length > 0) {
    throw new AppError(
      'invalid_argument',
      `outbox ${action} takes one item id (a whole number), as listed by 'vault-desk outbox list'.`,
    )
  }
  return id
}

/**
 * The connection named by --connection or --base-url, opened so that its items can be sent (a
 * headless one is known only to the command that names it); undefined when none is named.
 */
function namedConnection(context: CommandContext): string | undefined {
  const named =
    stringOption(context.values.connection) !== undefined ||
    stringOption(context.values['base-url']) !== undefined
  return named ? chooseConnection(context).runtime.id : undefined
}

function describeItems(items: readonly OutboxItemView[]): string {
  if (items.length === 0) return 'The outbox is empty.\n'
  return items
    .map((item) => {
      const error = item.lastError ? `\n      ${item.lastError}` : ''
      const progress = item.progress
        ? ` ${Math.round((100 * item.progress.sentBytes) / item.progress.totalBytes)}%`
        : ''
      return `#${item.id}  ${item.state.replace('_', ' ')}${progress}  ${item.summary}${error}\n`
    })
    .join('')
}

/**
 * `vault-desk outbox`: what waits to be sent, and the person's decisions on it. `retry` and
 * `send` then send what is queued, unless the running app does.
 */
export const outboxCommand: Command = {
  name: 'outbox',
  summary: 'List what waits to be sent; retry or discard an item; send what is queued.',
  usage,
  options: { all: { type: 'boolean' } },
  syncsOrSends: ([action]) => action === 'send' || action === 'retry',
  async run(context) {
    const services = context.services()
    const outbox = services.outbox
    if (outbox.recovery) {
      const { message, details } = describeRecovery(outbox.recovery)
      context.io.stderr(`vault-desk outbox: ${message}. ${details}\n`)
    }
    const action = context.positionals[0]
    switch (action) {
      case 'list': {
        if (context.positionals.length > 1)
          throw new AppError('invalid_argument', `usage: ${usage}`)
        const items = outbox.list(context.values.all === true ? { states: [...outboxStates] } : {})
        return { document: items, human: (document) => describeItems(document as OutboxItemView[]) }
      }
      case 'retry': {
        namedConnection(context)
        const item = await outbox.retry(itemIdOf(context, 'retry'))
        const delivery = await deliver(services, [item])
        return {
          document: delivery,
          exitCode: deliveryExitCode(delivery),
          human: () => describeDelivery(delivery),
        }
      }
      case 'discard': {
        const result = await outbox.discard(itemIdOf(context, 'discard'))
        return {
          document: result,
          human: () => `Discarded ${result.discarded.map((id) => `#${id}`).join(', ')}.\n`,
        }
      }
      case 'send': {
        const connectionId = namedConnection(context)
        outbox.start()
        const result = await outbox.flush(connectionId)
        return {
          document: result,
          exitCode:
            result.needsAttention + result.conflict + result.uncertain > 0
              ? exitCodes.failure
              : exitCodes.ok,
          human: () =>
            result.sentHere
              ? `${result.sent} sent; ${result.queued} still queued, ${result.needsAttention} need attention, ${result.conflict} in conflict, ${result.uncertain} uncertain.\n`
              : 'Vault Desk is running and sends the outbox.\n',
        }
      }
      default:
        throw new AppError('invalid_argument', `usage: ${usage}`)
    }
  },
}
