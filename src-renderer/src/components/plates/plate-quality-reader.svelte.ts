/**
 * A plate's readouts, wells, batch names and quality from the local copy (`plates.quality`), for
 * its page: the heat map and statistics (PlateHeatSection.svelte), the layout's readout rows and
 * its wells' batch names read the same answer. The record page asks as it starts, beside the
 * plate's record rather than after it (`providePlateQualityReader`), so that main reads the wells
 * while the page mounts. It asks again when the readout chosen or the thresholds change, when
 * readout rows, plates or batches change in the cache, and each second while the readout index is
 * being built; an answer to an earlier question that comes after a later one is dropped.
 */
import { getContext, setContext, untrack } from 'svelte'
import type { PlateQualityAnswer } from '../../../../src-main/ipc/contract.ts'
import {
  plateQualitySettings,
  type PlateQualitySettings,
} from '../../lib/plates/quality-settings.svelte.ts'
import type { RecordDesk } from '../../lib/state/record-desk.ts'

const readerKey = Symbol('plate-quality-reader')

/**
 * Made by the record page of plate `plateId` as it starts, and given to its body by context: the
 * page starts it beside the record's own read.
 */
export function providePlateQualityReader(desk: RecordDesk, plateId: number): PlateQualityReader {
  const reader = new PlateQualityReader(desk, plateId, plateQualitySettings())
  setContext(readerKey, reader)
  return reader
}

/** The reader the record page around made, or null (no plate page, or a plate not yet sent). */
export function plateQualityReader(): PlateQualityReader | null {
  return getContext<PlateQualityReader | undefined>(readerKey) ?? null
}

/** The batches' names the answer gives, by id: each its page's title, or `Batch <id>`. */
export function batchNamesOf(answer: PlateQualityAnswer | null): Readonly<Record<number, string>> {
  const batches = answer?.batches
  if (!batches) return {}
  return Object.fromEntries(
    batches.id.map((id, index) => [id, batches.name[index] ?? `Batch ${id}`]),
  ) as Record<number, string>
}

/** A readout of the plate as the reader names it: `run:definition` (run 0 when none). */
export function readoutKey(readout: { runId: number | null; definitionId: number }): string {
  return `${readout.runId ?? 0}:${readout.definitionId}`
}

/** Kinds whose changes can change an answer: its wells, its plate, its batches' names. */
const refreshedBy = new Set(['readout_rows', 'plates', 'batches'])

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
    // Started from an effect: the choice and thresholds the first question reads must not make
    // that effect start it again (a readout chosen would be asked twice).
    untrack(() => void this.read())
    const { connectionId, vaultId, session } = this.#desk
    const stopListening = session.bridge.on('records.changed', (change) => {
      if (change.connectionId !== connectionId || change.vaultId !== vaultId) return
      if (change.kinds.some((kind) => refreshedBy.has(kind))) void this.read()
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
