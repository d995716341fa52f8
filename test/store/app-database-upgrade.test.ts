import path from 'node:path'
import type Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { appMigrations, openAppDatabase } from '../../src-main/store/app-database.ts'
import { ConnectionsRepository } from '../../src-main/store/connections-repository.ts'
import { SettingsRepository } from '../../src-main/store/settings-repository.ts'
import {
  databaseAtStep,
  recordedSchema,
  releasedSchemaChanges,
  schemaChanges,
  schemaOf,
} from './fixtures/schema-steps.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

/**
 * The app database holds the saved connections: an app database an earlier release left opens at
 * the current step with every connection and setting as it was (step 2: tokens in the keychain,
 * names unique regardless of case).
 */

const currentStep = appMigrations.length

const connections = [
  {
    id: 'c-1',
    name: 'Production',
    base_url: 'https://vault.example/api/v1',
    created_at: '2024-01-01T00:00:00.000Z',
  },
  {
    id: 'c-2',
    name: 'Demo vault',
    base_url: 'http://127.0.0.1:4100/api/v1',
    created_at: '2024-01-02T00:00:00.000Z',
  },
]
const settings = [
  { key: 'sync.intervalMinutes', value: '30' },
  { key: 'demo.connection', value: 'c-2' },
]

function fillStep1(db: Database.Database, rows: readonly (typeof connections)[number][]): void {
  const insert = db.prepare(
    'INSERT INTO connections (id, name, base_url, created_at) VALUES (@id, @name, @base_url, @created_at)',
  )
  for (const row of rows) insert.run(row)
  const set = db.prepare('INSERT INTO settings (key, value) VALUES (@key, @value)')
  for (const setting of settings) set.run(setting)
}

describe('the released steps of the app database', () => {
  const temporaryDirectory = useTemporaryDirectory('vd-app-upgrade-')

  it('each leave the schema they left when released', () => {
    expect(schemaChanges(appMigrations)).toBe(releasedSchemaChanges('app'))
  })

  it('make, in a fresh database, the schema that all the recorded changes add up to', () => {
    const db = openAppDatabase(path.join(temporaryDirectory(), 'app.db'))
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(currentStep)
      expect(schemaOf(db)).toEqual(recordedSchema('app'))
    } finally {
      db.close()
    }
  })

  it('upgrade a database of step 1 with its connections and settings intact', () => {
    const file = path.join(temporaryDirectory(), 'app.db')
    const old = databaseAtStep(file, appMigrations, 1)
    fillStep1(old, connections)
    old.close()

    const db = openAppDatabase(file)
    try {
      const repository = new ConnectionsRepository(db)
      for (const row of connections) {
        expect(repository.get(row.id)).toEqual({
          id: row.id,
          name: row.name,
          baseUrl: row.base_url,
          createdAt: row.created_at,
          tokenStorage: 'keychain',
        })
      }
      const saved = new SettingsRepository(db)
      for (const { key, value } of settings) expect(saved.get(key)).toBe(value)
      expect(db.pragma('user_version', { simple: true })).toBe(currentStep)
      expect(schemaOf(db)).toEqual(recordedSchema('app'))
      expect(() =>
        repository.insert({
          id: 'c-3',
          name: 'PRODUCTION',
          baseUrl: 'https://other.example/api/v1',
          createdAt: '2024-02-01T00:00:00.000Z',
          tokenStorage: 'session',
        }),
      ).toThrow('A connection named "PRODUCTION" already exists.')
    } finally {
      db.close()
    }
  })

  it('upgrade a database of step 1 whose names differ only in case, renaming the later ones', () => {
    // Step 1 kept names unique only with their case; step 2 makes them unique in any case.
    const file = path.join(temporaryDirectory(), 'app.db')
    const old = databaseAtStep(file, appMigrations, 1)
    fillStep1(old, [
      { ...connections[0]!, id: 'c-3', name: 'LAB', created_at: '2024-03-01T00:00:00.000Z' },
      { ...connections[0]!, id: 'c-1', name: 'Lab', created_at: '2024-01-01T00:00:00.000Z' },
      { ...connections[0]!, id: 'c-2', name: 'lab (2)', created_at: '2024-02-01T00:00:00.000Z' },
      { ...connections[0]!, id: 'c-4', name: 'lab', created_at: '2024-03-01T00:00:00.000Z' },
      { ...connections[1]!, id: 'c-5' },
    ])
    old.close()

    const db = openAppDatabase(file)
    try {
      const names = new ConnectionsRepository(db).list().map(({ id, name }) => ({ id, name }))
      expect(names).toEqual([
        { id: 'c-5', name: 'Demo vault' },
        { id: 'c-1', name: 'Lab' },
        { id: 'c-2', name: 'lab (2)' },
        { id: 'c-3', name: 'LAB (3)' },
        { id: 'c-4', name: 'lab (4)' },
      ])
    } finally {
      db.close()
    }
  })
})
