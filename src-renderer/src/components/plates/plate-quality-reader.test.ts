import { describe, expect, it } from 'vitest'
import type { RequestResult, Result } from '../../lib/bridge.ts'
import { PlateQualitySettings } from '../../lib/plates/quality-settings.svelte.ts'
import type { RecordDesk } from '../../lib/state/record-desk.ts'
import type { Session } from '../../lib/state/session.svelte.ts'
import { BridgeDouble } from '../../lib/testing/bridge-double.ts'
import { batchNamesOf, PlateQualityReader } from './plate-quality-reader.svelte.ts'

type PlateQualityAnswer = RequestResult<'plates.quality'>

/** An answer told apart by its plate's name; the reader passes answers on as they come. */
function answerNamed(name: string): PlateQualityAnswer {
  return {
    plate: { id: 7, name, size: 96, location: null },
    rows: { rowId: [], well: [], controlState: [] },
    batches: { id: [], name: [] },
    readouts: [],
    chosen: null,
    backlog: { rows: 0, groups: 0 },
  }
}

/** Answers `plates.quality` in the order the test resolves them, not the order asked. */
function heldAnswers(bridge: BridgeDouble) {
  const held: ((result: Result<PlateQualityAnswer>) => void)[] = []
  bridge.answer('plates.quality', () => new Promise((resolve) => held.push(resolve)))
  return held
}

function readerOn(bridge: BridgeDouble) {
  const desk: RecordDesk = {
    session: { bridge } as unknown as Session,
    connectionId: 'c1',
    vaultId: 3,
  }
  return new PlateQualityReader(desk, 7, new PlateQualitySettings(null))
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe("a plate page's quality reader", () => {
  it('asks for the plate with the thresholds, then for the readout chosen by run and definition', async () => {
    const bridge = new BridgeDouble()
    const held = heldAnswers(bridge)
    const reader = readerOn(bridge)
    void reader.read()
    reader.choose('9:18')
    expect(bridge.calls.map((call) => call.args)).toEqual([
      {
        connectionId: 'c1',
        vaultId: 3,
        plateId: 7,
        quality: {
          thresholds: {
            zPrimeWarningBelow: 0.5,
            zPrimeFailureBelow: 0,
            deviationLevels: [1, 2, 3],
          },
        },
      },
      {
        connectionId: 'c1',
        vaultId: 3,
        plateId: 7,
        definitionId: 18,
        runId: 9,
        quality: {
          thresholds: {
            zPrimeWarningBelow: 0.5,
            zPrimeFailureBelow: 0,
            deviationLevels: [1, 2, 3],
          },
        },
      },
    ])
    expect(held).toHaveLength(2)
  })

  it('keeps the answer to the latest question when an earlier one comes after it', async () => {
    const bridge = new BridgeDouble()
    const held = heldAnswers(bridge)
    const reader = readerOn(bridge)
    void reader.read()
    reader.choose('9:18')
    held[1]!({ ok: true, value: answerNamed('latest') })
    await settle()
    held[0]!({ ok: true, value: answerNamed('earlier') })
    await settle()
    expect(reader.answer?.plate.name).toBe('latest')
  })

  it('says why it could not read, and forgets it once an answer comes', async () => {
    const bridge = new BridgeDouble()
    const held = heldAnswers(bridge)
    const reader = readerOn(bridge)
    void reader.read()
    held[0]!({
      ok: false,
      error: { code: 'not_found', message: 'Plate 7 is not in the local copy of vault 3.' },
    })
    await settle()
    expect(reader.failed).toBe('Plate 7 is not in the local copy of vault 3.')
    expect(reader.answer).toBeNull()
    void reader.read()
    held[1]!({ ok: true, value: answerNamed('found') })
    await settle()
    expect(reader.failed).toBeNull()
    expect(reader.answer?.plate.name).toBe('found')
  })

  it('asks again when readout rows change in the cache of its vault, and stops when told', async () => {
    const bridge = new BridgeDouble()
    heldAnswers(bridge)
    const reader = readerOn(bridge)
    const stop = reader.start()
    expect(bridge.calls).toHaveLength(1)
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 4, kinds: ['readout_rows'] })
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 3, kinds: ['molecules'] })
    expect(bridge.calls).toHaveLength(1)
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 3, kinds: ['readout_rows'] })
    expect(bridge.calls).toHaveLength(2)
    // The answer names the wells' batches, so a renamed batch is asked again too.
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 3, kinds: ['batches'] })
    expect(bridge.calls).toHaveLength(3)
    stop()
    bridge.emit('records.changed', { connectionId: 'c1', vaultId: 3, kinds: ['plates'] })
    expect(bridge.calls).toHaveLength(3)
  })

  it("names the wells' batches as the answer gives them, by id, else by their id", () => {
    expect(batchNamesOf(null)).toEqual({})
    const answer = {
      ...answerNamed('named'),
      batches: { id: [4, 9], name: ['VD-000004-001', null] },
    }
    expect(batchNamesOf(answer)).toEqual({ 4: 'VD-000004-001', 9: 'Batch 9' })
  })
})
