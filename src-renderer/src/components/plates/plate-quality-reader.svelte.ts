/**
 * A plate's readouts, wells and quality from the local copy (`plates.quality`), for its page: the
 * heat map and statistics (PlateHeatSection.svelte) and the layout's readout rows read the same
 * answer. The page asks as it starts, before its sections mount and draw, so that main reads the
 * plate meanwhile. It asks again when the readout chosen or the thresholds change, when readout
 * rows or plates change in the cache, and each second while the readout index is being built; an
 * answer to an earlier question that comes after a later one is dropped.
 */
import type { PlateQualityAnswer } from '../../../../src-main/ipc/contract.ts'
import type { PlateQualitySettings } from '../../lib/plates/quality-settings.svelte.ts'
import type { RecordDesk } from '../../lib/state/record-desk.ts'

/** A readout of the plate as the reader names it: `run:definition` (run 0 when none). */
export function readoutKey(readout: { runId: number | null; definitionId: number }): string {
  return `${readout.runId ?? 0}:${readout.definitionId}`
}

export class PlateQualityReader {
  answer = $state.raw<PlateQualityAnswer | null>(null)
  failed = $state<string | null>(null)
  /** The readout shown (`readoutKey`); null: the one main chooses. */
  choice = $state<string | null>(null)
  readonly plateId: number
  readonly #desk: RecordDesk
  readonly #settings: PlateQualitySettings
  #asked = 0

  constructor(desk: RecordDesk, plateId: number, settings: PlateQualitySettings) {
    this.#desk = desk
    this.plateId = plateId
    this.#settings = settings
  }

  /** Asks for the plate with the current readout and thresholds. */
  async read(): Promise<void> {
    const { connectionId, vaultId, session } = this.#desk
    const [runId, definitionId] = this.choice?.split(':').map(Number) ?? []
    const asked = ++this.#asked
    const result = await session.bridge.invoke('plates.quality', {
      connectionId,
      vaultId,
      plateId: this.plateId,
      ...(definitionId ? { definitionId } : {}),
      ...(runId ? { runId } : {}),
      quality: { thresholds: this.#settings.thresholdsToSend() },
    })
    if (asked !== this.#asked) return
    if (!result.ok) {
      this.failed = result.error.message
      return
    }
    this.failed = null
    this.answer = result.value
  }

  choose(key: string): void {
    this.choice = key
    void this.read()
  }

  /**
   * Reads now, then keeps the answer current until the returned function is called: on the
   * person's thresholds, cache changes and the index's progress.
   */
  start(): () => void {
    void this.read()
    const { connectionId, vaultId, session } = this.#desk
    const stopListening = session.bridge.on('records.changed', (change) => {
      if (change.connectionId !== connectionId || change.vaultId !== vaultId) return
      if (change.kinds.includes('readout_rows') || change.kinds.includes('plates')) {
        void this.read()
      }
    })
    const stopEffects = $effect.root(() => {
      let first = true
      $effect(() => {
        void this.#settings.thresholds
        if (first) first = false
        else void this.read()
      })

      $effect(() => {
        const latest = this.answer
        if (!latest || latest.backlog.rows + latest.backlog.groups === 0) return
        const timer = setTimeout(() => void this.read(), 1000)
        return () => clearTimeout(timer)
      })
    })
    return () => {
      stopListening()
      stopEffects()
    }
  }
}
