import { describe, expect, it } from 'vitest'
import type { EventPayload } from '../bridge.ts'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { SavedSearches } from './saved-searches.svelte.ts'

type SavedSearchSummary = SavedSearches['searches'][number]
type SavedSearchVaultRun = EventPayload<'searches.vaultRun'>

const quinazolines: SavedSearchSummary = {
  id: 4,
  name: 'Quinazoline cores',
  project: { id: 3, name: 'Kinase' },
  owner: 'Rosalind Franklin',
  words: 'Molecules containing the substructure c1ncnc2ccccc12',
  runsOffline: true,
  untranslated: [],
  runsOnVault: true,
  pending: null,
}

const started: SavedSearchVaultRun = {
  runId: '6f1c2a52-8a4e-4f3e-9d7e-0a0b0c0d0e0f',
  connectionId: 'c1',
  vaultId: 1,
  searchId: 4,
  name: 'Quinazoline cores',
  format: 'sdf',
  path: '/data/downloads/t/Quinazoline cores.sdf',
  state: 'waiting',
  exportId: null,
  queuePosition: null,
  bytes: 0,
  checkedAt: null,
}

function deskOver(options: { download: string | null; chosen?: 'dismissed' }) {
  const downloads: [string, string][] = []
  const bridge = quietBridge()
    .answer('searches.list', async () => ({ ok: true, value: [quinazolines] }))
    .answer('app.chooseSavePath', async () => ({
      ok: true,
      value:
        options.chosen === 'dismissed'
          ? null
          : {
              path: started.path,
              name: 'Quinazoline cores.sdf',
              ...(options.download ? { download: options.download } : {}),
            },
    }))
    .answer('searches.runOnVault', async () => ({ ok: true, value: started }))
    .answer('searches.cancelVaultRun', async () => ({ ok: true, value: { cancelled: true } }))
  const desk = new SavedSearches(bridge, 'c1', 1, {
    download: (href, name) => downloads.push([href, name]),
  })
  return { desk, bridge, downloads }
}

describe('SavedSearches', () => {
  it('runs a search on the vault where the person chose, follows it, and downloads it in the preview', async () => {
    const { desk, bridge, downloads } = deskOver({
      download: '/downloads/t/Quinazoline%20cores.sdf',
    })
    desk.start()
    await settle()
    expect(desk.searches).toEqual([quinazolines])

    // Progress may come before the answer that names the run: it is kept for it.
    const early = { ...started, state: 'queued' as const, exportId: 9, queuePosition: 2 }
    const outcome = desk.runOnVault(quinazolines, 'sdf')
    bridge.emit('searches.vaultRun', early)
    expect(await outcome).toEqual({ kind: 'started', runId: started.runId })
    expect(bridge.calls.find((call) => call.channel === 'searches.runOnVault')?.args).toEqual({
      connectionId: 'c1',
      vaultId: 1,
      search: 4,
      format: 'sdf',
      path: started.path,
    })
    expect(desk.runs[0]).toMatchObject({ state: 'queued', queuePosition: 2 })

    bridge.emit('searches.vaultRun', { ...started, vaultId: 2, state: 'completed' })
    expect(desk.runs[0]!.state).toBe('queued')
    bridge.emit('searches.vaultRun', { ...early, state: 'completed', bytes: 1200 })
    expect(desk.runs[0]).toMatchObject({ state: 'completed', bytes: 1200 })
    expect(downloads).toEqual([['/downloads/t/Quinazoline%20cores.sdf', 'Quinazoline cores.sdf']])
    // An ended run stays as it ended.
    bridge.emit('searches.vaultRun', { ...early, state: 'failed' })
    expect(desk.runs[0]!.state).toBe('completed')
    desk.dismiss(started.runId)
    expect(desk.runs).toEqual([])
  })

  it('does nothing when the save dialog is closed, and cancels a running run', async () => {
    const dismissed = deskOver({ download: null, chosen: 'dismissed' })
    expect(await dismissed.desk.runOnVault(quinazolines, 'csv')).toEqual({ kind: 'dismissed' })
    expect(dismissed.bridge.calls.some((call) => call.channel === 'searches.runOnVault')).toBe(
      false,
    )

    const { desk, bridge, downloads } = deskOver({ download: null })
    desk.start()
    await desk.runOnVault(quinazolines, 'sdf')
    await desk.cancel(started.runId)
    expect(desk.runs[0]!.cancelling).toBe(true)
    expect(bridge.calls.at(-1)).toMatchObject({
      channel: 'searches.cancelVaultRun',
      args: { runId: started.runId },
    })
    bridge.emit('searches.vaultRun', { ...started, state: 'cancelled' })
    expect(desk.runs[0]).toMatchObject({ state: 'cancelled', cancelling: false })
    expect(downloads).toEqual([])
  })
})
