import { describe, expect, it } from 'vitest'
import { settle } from '../testing/bridge-double.ts'
import { itemView } from '../testing/outbox-items.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { OutboxActivity } from './outbox.svelte.ts'

const counts = { queued: 1, sending: 1, needsAttention: 0, conflict: 0, uncertain: 0, pending: 2 }

describe('OutboxActivity', () => {
  it('reads items and history, again when items change; progress alone only moves the bars', async () => {
    let items = [
      itemView({ id: 1 }),
      itemView({ id: 2, state: 'sending', file: { name: 'a', size: 10 } }),
    ]
    const bridge = quietBridge()
      .answer('outbox.list', async () => ({ ok: true, value: items }))
      .answer('outbox.history', async () => ({
        ok: true,
        value: [itemView({ id: 0, state: 'sent' })],
      }))
    const outbox = new OutboxActivity(bridge, () => {})
    const stop = outbox.start()
    await settle()
    expect(outbox.loaded).toBe(true)
    expect(outbox.items.map((item) => item.id)).toEqual([1, 2])
    expect(outbox.find(0)?.state).toBe('sent')
    const reads = () => bridge.calls.filter((call) => call.channel === 'outbox.list').length

    bridge.emit('outbox.changed', {
      counts,
      itemIds: [],
      progress: [{ itemId: 2, sentBytes: 4, totalBytes: 10 }],
    })
    await settle()
    expect(reads()).toBe(1)
    expect(outbox.progressOf(outbox.items[1]!)).toEqual({ sentBytes: 4, totalBytes: 10 })

    items = [itemView({ id: 1, state: 'needs_attention', lastError: 'project: no such project' })]
    bridge.emit('outbox.changed', { counts, itemIds: [1, 2], progress: [] })
    await settle()
    expect(reads()).toBe(2)
    expect(outbox.items).toEqual(items)
    stop()
    expect(bridge.listenerCount('outbox.changed')).toBe(0)
  })

  it('reads the items again after a decision, and reports a failed read', async () => {
    const errors: string[] = []
    const bridge = quietBridge()
      .answer('outbox.list', async () => ({
        ok: false,
        error: { code: 'storage', message: 'outbox.db is locked' },
      }))
      .answer('outbox.retry', async () => ({ ok: true, value: itemView({ id: 3 }) }))
    const outbox = new OutboxActivity(bridge, (message) => errors.push(message))
    outbox.start()
    await settle()
    expect(errors).toEqual(['Could not read the outbox: outbox.db is locked'])
    expect(outbox.loaded).toBe(false)
    expect((await outbox.retry(3)).ok).toBe(true)
    await settle()
    expect(bridge.calls.filter((call) => call.channel === 'outbox.list')).toHaveLength(2)
  })
})
