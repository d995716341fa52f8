import fs from 'node:fs'
import path from 'node:path'
import keytar from 'keytar'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ConnectionTokens } from '../../src-main/secrets/connection-tokens.ts'
import { keychainService, KeychainTokenStore } from '../../src-main/secrets/keychain-token-store.ts'
import { SessionTokenStore } from '../../src-main/secrets/session-token-store.ts'
import { Redactor } from '../../src-main/shared/redactor.ts'
import { openAppDatabase } from '../../src-main/store/app-database.ts'
import { cacheFile } from '../../src-main/store/cache-files.ts'
import { ConnectionCaches } from '../../src-main/store/connection-caches.ts'
import { ConnectionRegistry } from '../../src-main/store/connection-registry.ts'
import { ConnectionsRepository } from '../../src-main/store/connections-repository.ts'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/secret-service.ts'
import { moleculeRecords } from './fixtures/molecule-records.ts'
import { useTemporaryDirectory } from './fixtures/temporary-directory.ts'

const canRun =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

describe.runIf(canRun)('connection registry with the real keychain', () => {
  const temporaryDirectory = useTemporaryDirectory()
  let service: SecretService
  const savedEnv = { ...process.env }
  const opened: { close(): void }[] = []

  beforeAll(async () => {
    service = await startSecretService('unlocked')
    Object.assign(process.env, service.env)
  })
  afterAll(async () => {
    await service?.stop()
    process.env = savedEnv
  })
  afterEach(async () => {
    for (const resource of opened.splice(0)) await resource.close()
  })

  function setUp(keychain = new KeychainTokenStore(new Redactor())) {
    const dataDir = temporaryDirectory()
    const db = openAppDatabase(path.join(dataDir, 'app.db'))
    const caches = new ConnectionCaches(dataDir)
    opened.push(db, { close: () => caches.closeAll() })
    const tokens = new ConnectionTokens(keychain, new SessionTokenStore(new Redactor()))
    const registry = new ConnectionRegistry(new ConnectionsRepository(db), tokens, caches)
    return { dataDir, db, caches, registry }
  }

  const production = {
    name: ' Production ',
    baseUrl: 'https://vault.example.org/api/v1/',
    token: ' tok-production-8d1f ',
    tokenStorage: 'keychain' as const,
  }

  it('adds a connection: its token in the keychain under its id, never in SQLite', async () => {
    const { dataDir, caches, registry } = setUp()
    const added = await registry.add(production)

    expect(added).toMatchObject({
      name: 'Production',
      baseUrl: 'https://vault.example.org/api/v1',
      tokenStorage: 'keychain',
    })
    expect(registry.list()).toEqual([
      { id: added.id, name: 'Production', baseUrl: added.baseUrl, createdAt: added.createdAt },
    ])
    expect(await keytar.getPassword(keychainService, added.id)).toBe('tok-production-8d1f')
    expect(await registry.token(added.id)).toBe('tok-production-8d1f')

    caches.open(added.id).cache.applyPage('molecules', 1, moleculeRecords(3))
    await caches.closeAll()
    for (const name of fs.readdirSync(dataDir, { recursive: true }).map(String)) {
      const file = path.join(dataDir, name)
      if (fs.statSync(file).isFile()) {
        expect(fs.readFileSync(file).includes('tok-production-8d1f'), name).toBe(false)
      }
    }
  })

  it('refuses duplicate names (in any case), bad addresses and empty values, naming the problem', async () => {
    const { registry } = setUp()
    await registry.add(production)
    await expect(registry.add({ ...production, name: 'PRODUCTION' })).rejects.toMatchObject({
      code: 'conflict',
      message: 'A connection named "PRODUCTION" already exists.',
    })
    await expect(
      registry.add({ ...production, name: 'B', baseUrl: 'http://vault.example.org/v1' }),
    ).rejects.toThrow(/must use https/)
    await expect(
      registry.add({ ...production, name: 'C', baseUrl: 'https://me:pw@vault.example.org/v1' }),
    ).rejects.toThrow(/user name or password/)
    await expect(registry.add({ ...production, name: 'D', baseUrl: 'vault' })).rejects.toThrow(
      'Not a URL: "vault".',
    )
    await expect(registry.add({ ...production, name: '  ' })).rejects.toThrow(
      'A connection needs a name.',
    )
    await expect(registry.add({ ...production, name: 'E', token: '   ' })).rejects.toThrow(
      'The API token is empty.',
    )
    const local = await registry.add({
      ...production,
      name: 'Simulator',
      baseUrl: 'http://127.0.0.1:8123/api/v1',
    })
    expect(local.baseUrl).toBe('http://127.0.0.1:8123/api/v1')
    expect(registry.list().map((connection) => connection.name)).toEqual([
      'Production',
      'Simulator',
    ])
  })

  it('renames, refusing a name in use and an unknown id', async () => {
    const { registry } = setUp()
    const first = await registry.add(production)
    await registry.add({ ...production, name: 'Staging' })
    expect(registry.rename(first.id, ' Production EU ').name).toBe('Production EU')
    expect(() => registry.rename(first.id, 'staging')).toThrow(
      'A connection named "staging" already exists.',
    )
    expect(() => registry.rename('no-such-id', 'X')).toThrow('No connection with id no-such-id.')
  })

  it('removes a connection with its keychain entry, keeping its cache unless deletion was confirmed', async () => {
    const { dataDir, caches, registry } = setUp()
    const kept = await registry.add(production)
    const gone = await registry.add({ ...production, name: 'Old' })
    for (const id of [kept.id, gone.id])
      caches.open(id).cache.applyPage('projects', 1, [{ id: 1, name: 'P' }])

    expect(await registry.remove(kept.id, { deleteCache: false })).toEqual({ deletedFiles: [] })
    expect(await keytar.getPassword(keychainService, kept.id)).toBeNull()
    expect(fs.existsSync(cacheFile(dataDir, kept.id))).toBe(true)

    fs.writeFileSync(
      cacheFile(dataDir, gone.id).replace('.db', '.damaged-2024-01-01T00-00-00-000Z.db'),
      'old',
    )
    const removed = await registry.remove(gone.id, { deleteCache: true })
    expect(removed.deletedFiles.map((file) => path.basename(file)).sort()).toEqual(
      expect.arrayContaining([`${gone.id}.db`, `${gone.id}.damaged-2024-01-01T00-00-00-000Z.db`]),
    )
    expect(
      fs.readdirSync(path.join(dataDir, 'caches')).filter((name) => name.startsWith(gone.id)),
    ).toEqual([])
    expect(fs.existsSync(cacheFile(dataDir, kept.id))).toBe(true)
    expect(registry.list()).toEqual([])
    await expect(registry.remove(gone.id, { deleteCache: true })).rejects.toMatchObject({
      code: 'not_found',
    })
  })

  it('keeps a session-only token in memory: gone after a restart, never in the keychain', async () => {
    const { db, caches, registry } = setUp()
    const added = await registry.add({ ...production, tokenStorage: 'session' })
    expect(await registry.token(added.id)).toBe('tok-production-8d1f')
    expect(await keytar.getPassword(keychainService, added.id)).toBeNull()

    const restarted = new ConnectionRegistry(
      new ConnectionsRepository(db),
      new ConnectionTokens(
        new KeychainTokenStore(new Redactor()),
        new SessionTokenStore(new Redactor()),
      ),
      caches,
    )
    expect(await restarted.token(added.id)).toBeNull()
    await restarted.setToken(added.id, 'tok-given-again', 'session')
    expect(await restarted.token(added.id)).toBe('tok-given-again')
    await restarted.setToken(added.id, 'tok-now-in-keychain', 'keychain')
    expect(restarted.get(added.id).tokenStorage).toBe('keychain')
    expect(await keytar.getPassword(keychainService, added.id)).toBe('tok-now-in-keychain')
  })

  it('saves nothing when the keychain is unavailable, and then accepts a session-only token', async () => {
    const missingLibrary = new KeychainTokenStore(new Redactor(), {
      platform: 'linux',
      loadBackend: () =>
        Promise.reject(new Error('libsecret-1.so.0: cannot open shared object file')),
    })
    const { registry } = setUp(missingLibrary)
    await expect(registry.add(production)).rejects.toMatchObject({
      code: 'keychain_unavailable',
      message: expect.stringMatching(/libsecret.*for this session only/s),
    })
    expect(registry.list()).toEqual([])

    const added = await registry.add({ ...production, tokenStorage: 'session' })
    expect(await registry.token(added.id)).toBe('tok-production-8d1f')
    expect(await registry.remove(added.id, { deleteCache: false })).toEqual({ deletedFiles: [] })
  })

  it('refuses to remove a keychain connection while the keychain is unreachable, so no token is left behind', async () => {
    const { db, caches, registry } = setUp()
    const added = await registry.add(production)
    const unreachable = new ConnectionRegistry(
      new ConnectionsRepository(db),
      new ConnectionTokens(
        new KeychainTokenStore(new Redactor(), {
          platform: 'linux',
          loadBackend: () =>
            Promise.reject(new Error('libsecret-1.so.0: cannot open shared object file')),
        }),
        new SessionTokenStore(new Redactor()),
      ),
      caches,
    )
    await expect(unreachable.remove(added.id, { deleteCache: true })).rejects.toMatchObject({
      code: 'keychain_unavailable',
    })
    expect(registry.list().map((connection) => connection.id)).toEqual([added.id])
    expect(await keytar.getPassword(keychainService, added.id)).toBe('tok-production-8d1f')
  })
})
