import fs from 'node:fs'
import keytar from 'keytar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/secret-service.ts'
import { fileContains, filesUnder, testServices } from './support.ts'

const canRun =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

describe.runIf(canRun)('connections keep their tokens in the real keychain', () => {
  let secrets: SecretService
  let sim: VaultSim

  beforeAll(async () => {
    secrets = await startSecretService('unlocked')
    // libsecret keeps the first bus it connects to: set before keytar is first used.
    Object.assign(process.env, secrets.env)
    sim = await startDemoSnapshotSim({ port: 0 })
  })
  afterAll(async () => {
    await sim?.stop()
    await secrets?.stop()
  })

  it('stores the token under "Vault Desk" and the connection id, and nowhere else', async () => {
    const { services, dataDir, dispose } = testServices()
    const token = sim.cast.users.writer.tokens[0]!
    try {
      const added = await services.connections.add({
        name: 'Lab',
        baseUrl: sim.baseUrl,
        token,
        sessionOnly: false,
      })
      expect(added.tokenPlace).toBe('keychain')
      expect(await keytar.getPassword('Vault Desk', added.connection.id)).toBe(token)
      const result = await services.sync.run(services.runtimes.get(added.connection.id))
      expect(result.outcome).toBe('completed')
      expect(await services.connections.statuses()).toEqual([
        expect.objectContaining({ connectionId: added.connection.id, tokenPlace: 'keychain' }),
      ])
      await services.close()
      for (const file of filesUnder(dataDir)) expect(fileContains(file, token), file).toBe(false)
    } finally {
      await dispose()
    }
  })

  it('reads the token from the keychain after a restart, and replaces it after a refusal', async () => {
    const first = testServices()
    const token = sim.cast.users.admin.tokens[0]!
    const { connection } = await first.services.connections.add({
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token,
      sessionOnly: false,
    })
    await first.services.close()
    const { services, dispose } = testServices({ dataDir: first.dataDir })
    try {
      const result = await services.sync.run(services.runtimes.get(connection.id), { vaultIds: [] })
      expect(result.outcome).toBe('completed')
      const other = sim.cast.users.writer.tokens[1]!
      await services.connections.updateToken({
        connectionId: connection.id,
        token: other,
        sessionOnly: false,
      })
      expect(await keytar.getPassword('Vault Desk', connection.id)).toBe(other)
    } finally {
      await dispose()
      await first.dispose()
    }
  })

  it('removes the keychain entry with the connection, and the cache only when confirmed', async () => {
    const { services, dataDir, dispose } = testServices()
    try {
      const add = (name: string) =>
        services.connections.add({
          name,
          baseUrl: sim.baseUrl,
          token: sim.cast.users.reader.tokens[0]!,
          sessionOnly: false,
        })
      const kept = (await add('Kept cache')).connection.id
      const gone = (await add('Deleted cache')).connection.id
      for (const id of [kept, gone]) {
        await services.sync.run(services.runtimes.get(id), { vaultIds: [] })
      }
      expect(await services.connections.remove(kept, { deleteCache: false })).toEqual({
        connectionId: kept,
        deletedFiles: [],
      })
      expect(fs.existsSync(cacheFile(dataDir, kept))).toBe(true)
      const removed = await services.connections.remove(gone, { deleteCache: true })
      expect(removed.deletedFiles).toContain(cacheFile(dataDir, gone))
      expect(fs.existsSync(cacheFile(dataDir, gone))).toBe(false)
      expect(await keytar.getPassword('Vault Desk', kept)).toBeNull()
      expect(await keytar.getPassword('Vault Desk', gone)).toBeNull()
      expect(services.connections.list()).toEqual([])
    } finally {
      await dispose()
    }
  })
})
