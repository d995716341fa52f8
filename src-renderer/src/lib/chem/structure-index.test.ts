import { describe, expect, it } from 'vitest'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge } from '../testing/quiet-bridge.ts'
import { ChemDesk } from './chem-desk.svelte.ts'

describe('StructureIndex', () => {
  it('follows the index of its vault as it is built, and asks for the final counts', async () => {
    let answer = { indexed: 100, total: 2000, unparseable: 0, building: true }
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

    bridge.emit('chem.indexProgress', { connectionId: 'c1', vaultId: 2, indexed: 9, total: 9 })
    bridge.emit('chem.indexProgress', {
      connectionId: 'c1',
      vaultId: 1,
      indexed: 1500,
      total: 2000,
    })
    expect(index.state).toEqual({ indexed: 1500, total: 2000, unparseable: 0, building: true })

    answer = { indexed: 2000, total: 2000, unparseable: 3, building: false }
    bridge.emit('chem.indexProgress', {
      connectionId: 'c1',
      vaultId: 1,
      indexed: 2000,
      total: 2000,
    })
    expect(index.building).toBe(false)
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
