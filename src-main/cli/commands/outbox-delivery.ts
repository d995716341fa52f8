import type { OutboxItemView } from '../../../src-common/outbox/item-view.ts'
import { waitsForPerson } from '../../../src-common/outbox/states.ts'
import type { Services } from '../../services/index.ts'
import { exitCodes, type ExitCode } from '../exit-codes.ts'

/** How a command that queued or retried items ended. */
export interface Delivery {
  /** False while another process (the app) holds the outbox and sends it. */
  sentHere: boolean
  items: OutboxItemView[]
}

/**
 * One pass of sending, when no other process sends this outbox: the items given and whatever
 * else of their connection is due. Unreachable, the items stay queued for `vault-desk sync`.
 * `holder`: the process holding the data folder, which sends them instead.
 */
export async function deliver(
  services: Services,
  items: readonly OutboxItemView[],
  holder?: string,
): Promise<Delivery> {
  const outbox = services.outbox
  if (holder !== undefined || !outbox.start()) {
    if (outbox.unwritable) throw outbox.unwritable
    return { sentHere: false, items: [...items] }
  }
  for (const connectionId of new Set(items.map((item) => item.connectionId))) {
    await outbox.flush(connectionId)
  }
  return { sentHere: true, items: items.map((item) => outbox.item(item.id)) }
}

/**
 * Sent or queued is success (queued offline is what the person asked for); what waits for the
 * person (refused, in conflict, uncertain) is not.
 */
export function deliveryExitCode(delivery: Delivery): ExitCode {
  return delivery.items.some((item) => waitsForPerson(item.state))
    ? exitCodes.failure
    : exitCodes.ok
}

export function describeDelivery(delivery: Delivery): string {
  const lines = delivery.items.map((item) => {
    const state = item.state.replace('_', ' ')
    const detail =
      item.state === 'sent'
        ? item.serverId !== null
          ? ` (server id ${item.serverId})`
          : ''
        : item.lastError
          ? `: ${item.lastError}`
          : ''
    return `#${item.id} ${item.summary}: ${state}${detail}\n`
  })
  const queued = delivery.items.some((item) => item.state === 'queued')
  const note = !delivery.sentHere
    ? 'Vault Desk is running and sends the outbox.\n'
    : queued
      ? "Queued items are sent by 'vault-desk sync' (or 'vault-desk outbox send').\n"
      : ''
  return lines.join('') + note
}
