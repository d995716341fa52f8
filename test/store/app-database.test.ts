import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { openAppDatabase } from '../../src-main/store/app-database.ts'
import { ConnectionsRepository } from '../../src-main/store/connections-repository.ts'
import { SettingsRepository } from '../../src-main/store/settings-repository.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

describe('the app database: settings and connection addresses', () => {
  const temporaryDirectory = useTemporaryDirectory()

  it('keeps settings by key across reopening, replaces and deletes them', () => {
    const file = path.join(temporaryDirectory(), 'app.db')
    let db = openAppDatabase(file)
    const settings = new SettingsRepository(db)
    expect(settings.get('sync.intervalMinutes')).toBeNull()
    settings.set('sync.intervalMinutes', '15')
    settings.set('sync.intervalMinutes', '30')
    settings.set('demo.connection', 'c-1')
    db.close()

    db = openAppDatabase(file)
    const reopened = new SettingsRepository(db)
    expect(reopened.get('sync.intervalMinutes')).toBe('30')
    reopened.delete('demo.connection')
    expect(reopened.get('demo.connection')).toBeNull()
    db.close()
  })

  it('moves a connection to another address, and names a connection it does not know', () => {
    const db = openAppDatabase(path.join(temporaryDirectory(), 'app.db'))
    const connections = new ConnectionsRepository(db)
    connections.insert({
      id: 'c-1',
      name: 'Demo vault',
      baseUrl: 'http://127.0.0.1:4100/api/v1',
      createdAt: '2024-01-01T00:00:00.000Z',
      tokenStorage: 'session',
    })
    connections.setBaseUrl('c-1', 'http://127.0.0.1:4200/api/v1')
    expect(connections.get('c-1')?.baseUrl).toBe('http://127.0.0.1:4200/api/v1')
    expect(() => connections.setBaseUrl('c-2', 'http://127.0.0.1:1/api/v1')).toThrow(
      'No connection with id c-2.',
    )
    db.close()
  })
})
