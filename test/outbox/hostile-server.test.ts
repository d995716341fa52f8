import path from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { retryAfterCapMs } from '../../src-main/api/backoff.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import { maxErrorTextLength } from '../../src-main/shared/error-text.ts'
import { Redactor } from '../../src-main/shared/redactor.ts'
import {
  loopbackServer,
  type LoopbackHandler,
  type LoopbackServer,
} from '../api/support/loopback-server.ts'
import { connectionId, useOutboxHarness, waitUntil } from './support/outbox-harness.ts'

const harness = useOutboxHarness()

const servers: LoopbackServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** An outbox whose connection is a small server answering every request with `handler`. */
async function outboxAgainst(handler: LoopbackHandler, token: string) {
  const server = await loopbackServer(handler)
  servers.push(server)
  const client = new VaultClient({
    baseUrl: server.url,
    token,
    limiters: new LimiterRegistry(),
    retry: { attempts: 1 },
  })
  return harness.open({ client })
}

describe('the outbox and a hostile server', () => {
  it('waits at most ten minutes when a server says Retry-After: 1000000000', async () => {
    harness.sim.faults.set({ tooManyRequestsRate: 1, retryAfterSeconds: 1e9, match: /^POST / })
    const { outbox } = harness.open({ user: 'writer' })
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Told to wait for decades' },
    })
    outbox.start()
    await waitUntil('the server refused the item once', () => {
      const { state, lastError } = outbox.item(item!.id)
      return state === 'queued' && lastError !== null
    })
    const view = outbox.item(item!.id)
    expect(view).toMatchObject({ state: 'queued', inDoubt: false })
    expect(view.lastError).toEqual(expect.any(String))
    const wait = Date.parse(view.nextAttemptAt!) - Date.parse(view.updatedAt)
    expect(wait).toBe(retryAfterCapMs)
    expect(harness.sim.stats.injected.tooManyRequests).toBe(1)
  })

  it('keeps an HTML page that echoes the token out of the last error: its title, redacted', async () => {
    const token = 'tok-outbox-echo-5e1f'
    const { outbox } = await outboxAgainst((request, response) => {
      const echoed = String(request.headers['x-svc-token'])
      response.writeHead(422, { 'Content-Type': 'text/html' })
      response.end(
        `<html><head><title>Refused for ${echoed}</title></head><body>` +
          `<pre>${echoed}</pre>`.repeat(10_000) +
          '</body></html>',
      )
    }, token)
    const [item] = await outbox.queue({
      connectionId,
      vaultId: 1,
      operation: 'collection.create',
      payload: { name: 'Refused with a page' },
    })
    outbox.start()
    await waitUntil(
      'the item needs attention',
      () => outbox.item(item!.id).state === 'needs_attention',
    )
    expect(outbox.item(item!.id).lastError).toBe('Refused for [redacted]')
  })

  it('keeps the last error of a 200 KB text answer short and without the token', async () => {
    const token = 'tok-outbox-echo-7a3c'
    const { outbox } = await outboxAgainst((request, response) => {
      response.writeHead(400, { 'Content-Type': 'text/plain' })
      response.end(`bad request from ${String(request.headers['x-svc-token'])}; `.repeat(5000))
    }, token)
    const [item] = await outbox.queue({
      connectionId,
      vaultId: 1,
      operation: 'collection.create',
      payload: { name: 'Refused at length' },
    })
    outbox.start()
    await waitUntil(
      'the item needs attention',
      () => outbox.item(item!.id).state === 'needs_attention',
    )
    const lastError = outbox.item(item!.id).lastError!
    expect(lastError.length).toBe(maxErrorTextLength)
    expect(lastError.endsWith('…')).toBe(true)
    expect(lastError).toMatch(/^bad request from \[redacted\]; /)
    expect(lastError).not.toContain(token)
  })

  it('scrubs a last error an older version stored with the token in it, when read', async () => {
    const token = 'tok-stored-long-ago-91c2'
    const { outbox, dataDir } = harness.open({ user: 'writer' })
    const [item] = await outbox.queue({
      connectionId,
      vaultId: harness.vaultId,
      operation: 'collection.create',
      payload: { name: 'Refused by an older version' },
    })
    const stored = `Refused: token ${token} is not valid\u001b[2J`.padEnd(
      maxErrorTextLength * 2,
      '.',
    )
    const db = new Database(path.join(dataDir, 'outbox.db'))
    db.prepare('UPDATE items SET last_error = ? WHERE id = ?').run(stored, item!.id)
    db.close()
    // This process learns the token (the connection's token is read when it starts).
    new Redactor().add(token)
    const lastError = outbox.item(item!.id).lastError!
    expect(lastError).toMatch(/^Refused: token \[redacted\] is not valid\ufffd\[2J\.+…$/)
    expect(lastError.length).toBe(maxErrorTextLength)
  })
})
