/**
 * A page's dose-response curves, kept current: asked of main (`curves.ofBatch` or
 * `curves.ofProtocol`), and asked again whenever what they are made of changes (readout rows,
 * data series or calculations synced, a correction queued, sent or discarded in the outbox) and
 * while the readout index is still being built. Reads are coalesced: a burst of changes asks once
 * more, never once per change.
 */
import type { CurvesAnswer } from '../../../../src-main/ipc/contract.ts'
import type { Result } from '../bridge.ts'
import { coalesced } from '../state/coalesced.ts'
import type { RecordDesk } from '../state/record-desk.ts'

/** Kinds whose change can change a curve. */
export const curveKinds: readonly string[] = [
  'readout_rows',
  'dose_response_series',
  'dose_response_calculations',
  'protocols',
]

/** How often the curves are asked again while the readout index has rows to go. */
const backlogPollMs = 1000

export class CurvesReader {
  answer = $state.raw<CurvesAnswer | null>(null)
  failed = $state<string | null>(null)
  readonly #desk: RecordDesk
  readonly #ask: () => Promise<Result<CurvesAnswer>>
  readonly #read = coalesced(() => this.#readNow())

  constructor(desk: RecordDesk, ask: () => Promise<Result<CurvesAnswer>>) {
    this.#desk = desk
    this.#ask = ask
  }

  /** Reads now and follows changes until the returned function is called. */
  start(): () => void {
    const { session, connectionId, vaultId } = this.#desk
    let timer: ReturnType<typeof setTimeout> | null = null
    let stopped = false
    const read = async () => {
      await this.#read()
      if (stopped) return
      const backlog = this.answer?.backlog
      if (timer === null && backlog && backlog.rows + backlog.groups > 0) {
        timer = setTimeout(() => {
          timer = null
          void read()
        }, backlogPollMs)
      }
    }
    const stopRecords = session.bridge.on('records.changed', (change) => {
      if (change.connectionId !== connectionId || change.vaultId !== vaultId) return
      if (change.kinds.some((kind) => curveKinds.includes(kind))) void read()
    })
    const stopOutbox = session.bridge.on('outbox.changed', (change) => {
      if (change.itemIds.length > 0) void read()
    })
    void read()
    return () => {
      stopped = true
      if (timer !== null) clearTimeout(timer)
      stopRecords()
      stopOutbox()
    }
  }

  /** Asks again now (after queueing a correction, so the refit shows without waiting). */
  refresh(): Promise<void> {
    return this.#read()
  }

  async #readNow(): Promise<void> {
    const result = await this.#ask()
    if (result.ok) {
      this.answer = result.value
      this.failed = null
    } else {
      this.failed = result.error.message
    }
  }
}
