import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDispatcher } from '../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../src-main/ipc/handlers.ts'
import type { VaultSim } from '../../src-sim/index.ts'
import { startDemoSnapshotSim } from '../support/demo-snapshot.ts'
import { requirement } from '../support/environment.ts'
import {
  secretServiceInstalled,
  startSecretService,
  type SecretService,
} from '../support/secret-service.ts'
import { testServices } from './support.ts'

const canRun =
  process.platform === 'linux' && requirement(secretServiceInstalled(), 'D-Bus with GNOME Keyring')

describe.runIf(canRun)(
  'no secret service: a clear message, then the token for this session',
  () => {
    let secrets: SecretService
    let sim: VaultSim

    beforeAll(async () => {
      // A session bus on which no Secret Service runs, as on a bare Linux lab machine.
      secrets = await startSecretService('absent')
      Object.assign(process.env, secrets.env)
      sim = await startDemoSnapshotSim({ port: 0 })
    })
    afterAll(async () => {
      await sim?.stop()
      await secrets?.stop()
    })

    it('explains what is missing, saves nothing, and works for the session when the person chooses it', async () => {
      const { services, dispose } = testServices()
      const dispatch = createDispatcher(createHandlers(services), services.log)
      const token = sim.cast.users.admin.tokens[0]!
      const args = { name: 'Lab', baseUrl: sim.baseUrl, token }
      try {
        const refused = await dispatch('connections.add', args)
        expect(refused).toMatchObject({ ok: false, error: { code: 'keychain_unavailable' } })
        const message = refused.ok ? '' : refused.error.message
        expect(message).toMatch(/org\.freedesktop\.secrets/)
        expect(message).toMatch(/for this session only/)
        expect(message).not.toContain(token)
        expect(services.connections.list()).toEqual([])

        const added = await dispatch('connections.add', { ...args, sessionOnly: true })
        expect(added).toMatchObject({ ok: true, value: { tokenPlace: 'session' } })
        const id = services.connections.list()[0]!.id
        expect(await services.connections.statuses()).toEqual([
          expect.objectContaining({
            connectionId: id,
            tokenPlace: 'session',
            needsNewToken: false,
          }),
        ])
        const result = await services.sync.run(services.runtimes.get(id), {
          vaultIds: [sim.cast.vaults.ai.id],
        })
        expect(result.outcome).toBe('completed')
        expect(
          services.browse.vaults(id).find((vault) => vault.id === sim.cast.vaults.ai.id)?.counts
            .molecules,
        ).toBe(150)
      } finally {
        await dispose()
      }
    })
  },
)
