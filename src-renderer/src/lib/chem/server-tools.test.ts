import { describe, expect, it } from 'vitest'
import type { RequestArgs } from '../bridge.ts'
import { settle } from '../testing/bridge-double.ts'
import { quietBridge, svgOf } from '../testing/quiet-bridge.ts'
import { ServerTools } from './server-tools.svelte.ts'

const target = { connectionId: 'c1', vaultId: 1, moleculeId: 7 }

describe('ServerTools', () => {
  it('asks the vault once per tool and draws the results', async () => {
    const bridge = quietBridge().answer('chem.serverTools', async () => {
      const { tool } = bridge.calls.at(-1)!.args as RequestArgs<'chem.serverTools'>
      return {
        ok: true,
        value: {
          results:
            tool === 'similar'
              ? [{ smiles: 'CCN', svg: svgOf('CCN'), score: 0.81, label: 'VD-000002' }]
              : [{ smiles: 'C[*]', svg: null }],
        },
      }
    })
    const tools = new ServerTools(bridge, target)
    await tools.show('similar')
    expect(tools.current).toEqual({
      status: 'done',
      results: [
        {
          smiles: 'CCN',
          url: expect.stringMatching(/^data:image\/svg\+xml/),
          score: 0.81,
          label: 'VD-000002',
        },
      ],
    })
    await tools.show('fragments')
    expect(tools.current).toEqual({ status: 'done', results: [{ smiles: 'C[*]', url: null }] })
    await tools.show('similar')
    expect(bridge.calls.filter((call) => call.channel === 'chem.serverTools')).toHaveLength(2)
    expect(bridge.calls[0]!.args).toEqual({ ...target, tool: 'similar' })
  })

  it('says when the vault is away, and asks again when shown later', async () => {
    let online = false
    const bridge = quietBridge().answer('chem.serverTools', async () =>
      online
        ? { ok: true, value: { results: [] } }
        : { ok: false, error: { code: 'offline', message: 'The vault is not answering' } },
    )
    const tools = new ServerTools(bridge, target)
    await tools.show('bioisosteres')
    expect(tools.current).toEqual({ status: 'offline', message: 'The vault is not answering' })
    online = true
    await tools.show('bioisosteres')
    expect(tools.current).toEqual({ status: 'done', results: [] })
  })

  it('tells once, for every tool, that the vault does not offer them', async () => {
    const bridge = quietBridge().answer('chem.serverTools', async () => ({
      ok: false,
      error: { code: 'forbidden', message: 'This vault has no deep learning' },
    }))
    const tools = new ServerTools(bridge, target)
    await tools.show('bioisosteres')
    expect(tools.unavailable).toBe(true)
    await tools.show('fragments')
    await settle()
    expect(tools.current.status).toBe('unavailable')
    expect(bridge.calls.filter((call) => call.channel === 'chem.serverTools')).toHaveLength(1)
  })

  it('keeps other failures apart, to be tried again', async () => {
    const bridge = quietBridge().answer('chem.serverTools', async () => ({
      ok: false,
      error: { code: 'invalid_argument', message: 'The server refused the structure' },
    }))
    const tools = new ServerTools(bridge, target)
    await tools.show('fragments')
    expect(tools.current).toEqual({
      status: 'failed',
      message: 'The server refused the structure',
    })
    expect(tools.unavailable).toBe(false)
  })
})
