import { describe, expect, it } from 'vitest'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { ChemDesk } from './chem-desk.svelte.ts'

describe('StructureIndex', () => {
  it('follows the index of its vault as it is built, and asks for the final counts', async () => {
    let answer = { indexed: 100, total: 2000, unparseable: 0, detailsPending: 100, building: true }
    const bridge = quietBridge().answer('chem.indexState', async () => ({
      ok: true,
      value: answer,
    }))
    const desk = new ChemDesk(bridge)
    const stop = desk.start()
    const index = desk.index('c1', 1)
    expect(desk.index('c1', 1)).toBe(index)
    await settle()
    expect(index.building).toBe(true)
    expect(index.fraction).toBe(0.05)

    const progress = (vaultId: number, indexed: number, total: number, detailsPending: number) =>
      bridge.emit('chem.indexProgress', {
        connectionId: 'c1',
        vaultId,
        indexed,
        total,
        detailsPending,
      })
    progress(2, 9, 9, 0)
    progress(1, 1500, 2000, 1500)
    expect(index.state).toEqual({
      indexed: 1500,
      total: 2000,
      unparseable: 0,
      detailsPending: 1500,
      building: true,
    })

    // Every molecule is searchable; the InChIKeys and properties are still being computed.
    progress(1, 2000, 2000, 2000)
    expect(index.building).toBe(true)
    expect(index.detailsFraction).toBe(0)
    progress(1, 2000, 2000, 500)
    expect(index.detailsFraction).toBe(0.75)

    answer = { indexed: 2000, total: 2000, unparseable: 3, detailsPending: 0, building: false }
    progress(1, 2000, 2000, 0)
    expect(index.building).toBe(false)
    expect(index.detailsFraction).toBeNull()
    await settle()
    expect(index.state).toEqual(answer)

    desk.retainConnections([])
    expect(desk.index('c1', 1)).not.toBe(index)
    stop()
    expect(bridge.listenerCount('chem.indexProgress')).toBe(0)
  })

  it('knows nothing of an empty vault', async () => {
    const desk = new ChemDesk(quietBridge())
    const index = desk.index('c1', 1)
    await settle()
    expect(index.fraction).toBeNull()
    expect(index.building).toBe(false)
  })
})
