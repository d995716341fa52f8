import { describe, expect, it } from 'vitest'
import { silentLogger } from '../shared/logger.ts'
import { createDispatcher, type RequestHandlers } from './dispatcher.ts'
import { requestChannels } from './channels.ts'
import { requestSchemas } from './contract.ts'

/** Arguments are checked before any handler runs: none of these may reach one. */
const dispatch = createDispatcher({} as RequestHandlers, silentLogger)

async function refusal(channel: string, args: unknown): Promise<string> {
  const result = await dispatch(channel, args)
  expect(result.ok).toBe(false)
  if (result.ok) return ''
  expect(result.error.code).toBe('invalid_argument')
  return result.error.message
}

describe('the browse contract', () => {
  it('gives every channel of every domain a schema', () => {
    expect(Object.keys(requestSchemas).sort()).toEqual([...requestChannels].sort())
    for (const channel of [
      'connections.add',
      'demo.open',
      'vaults.list',
      'records.list',
      'sync.start',
    ]) {
      expect(requestChannels).toContain(channel)
    }
  })

  it('refuses a record kind it does not know, naming the member', async () => {
    const message = await refusal('records.list', {
      connectionId: 'c1',
      vaultId: 1,
      kind: 'potions',
    })
    expect(message).toContain('kind')
  })

  it('refuses an empty token and a missing confirmation of cache deletion', async () => {
    expect(
      await refusal('connections.add', { name: 'Lab', baseUrl: 'https://x/api/v1', token: '  ' }),
    ).toContain('token')
    expect(await refusal('connections.remove', { connectionId: 'c1' })).toContain('deleteCache')
  })

  it('refuses connection ids that could name another file, and limits beyond the store', async () => {
    expect(await refusal('vaults.list', { connectionId: '../app' })).toContain('connectionId')
    expect(
      await refusal('records.list', {
        connectionId: 'c1',
        vaultId: 1,
        kind: 'molecules',
        limit: 5000,
      }),
    ).toContain('limit')
    expect(await refusal('sync.configure', { intervalMinutes: 0 })).toContain('intervalMinutes')
  })
})
