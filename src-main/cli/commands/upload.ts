import path from 'node:path'
import {
  attachTargets,
  isAttachTarget,
  type AttachTarget,
} from '../../../src-common/outbox/attach-targets.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery } from './outbox-delivery.ts'

const usage = `vault-desk upload --vault V --to ${attachTargets.map((kind) => `${kind}:ID`).join('|')} FILE [--connection NAME] [--json]`

/** `--to KIND:ID`; a readout row's file goes to its run. */
function targetOf(value: unknown): { kind: AttachTarget; id: number } {
  const match = typeof value === 'string' ? /^([a-z_]+):(\d+)$/.exec(value.trim()) : null
  const kind = match?.[1]
  if (!match || !isAttachTarget(kind)) {
    throw new AppError(
      'invalid_argument',
      `--to takes KIND:ID with KIND one of ${attachTargets.join(', ')}, not ${JSON.stringify(value ?? null)}.`,
    )
  }
  return { kind, id: Number(match[2]) }
}

/**
 * `vault-desk upload`: queues a file for a record (a copy is kept, so the original may move),
 * then sends what is queued for the connection unless the app does. Offline, it stays queued.
 */
export const uploadCommand: Command = {
  name: 'upload',
  summary: 'Queue a file for a molecule, run, protocol or ELN entry, and send it when online.',
  usage,
  options: { vault: { type: 'string' }, to: { type: 'string' } },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    if (vaultId === undefined)
      throw new AppError('invalid_argument', `upload needs --vault V. usage: ${usage}`)
    const target = targetOf(context.values.to)
    const [file, ...extra] = context.positionals
    if (file === undefined || extra.length > 0) {
      throw new AppError('invalid_argument', `upload takes one FILE. usage: ${usage}`)
    }
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const items = await services.outbox.queue({
      connectionId: runtime.id,
      vaultId,
      operation: 'file.attach',
      file: path.resolve(file),
      target: { kind: target.kind, ref: { id: target.id } },
    })
    const delivery = await deliver(services, items, context.holder)
    return {
      document: delivery,
      exitCode: deliveryExitCode(delivery),
      human: () => describeDelivery(delivery),
    }
  },
}
