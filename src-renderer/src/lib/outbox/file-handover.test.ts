import { describe, expect, it } from 'vitest'
import { BridgeDouble } from '../testing/bridge-double.ts'
import { itemView } from '../testing/outbox-items.ts'
import {
  chunkBytes,
  queueWithFiles,
  type HandOverProgress,
  type QueueArgs,
} from './file-handover.ts'

const attach = ([file]: string[]): QueueArgs => ({
  connectionId: 'c1',
  vaultId: 1,
  operation: 'file.attach',
  file: file!,
  target: { kind: 'molecule', ref: { id: 12 } },
})

const argsOf = (bridge: BridgeDouble, channel: string) =>
  bridge.calls.filter((call) => call.channel === channel).map((call) => call.args)

describe('queueWithFiles', () => {
  it('gives the outbox the local path where the host knows it (Electron)', async () => {
    const bridge = new BridgeDouble().answer('outbox.queue', async () => ({
      ok: true,
      value: [itemView()],
    }))
    bridge.pathForFile = () => '/home/ana/spectrum.csv'
    const result = await queueWithFiles(bridge, [new File(['x'], 'spectrum.csv')], attach)
    expect(result.ok).toBe(true)
    expect(argsOf(bridge, 'outbox.queue')).toEqual([attach(['/home/ana/spectrum.csv'])])
    expect(argsOf(bridge, 'outbox.stageFile')).toEqual([])
  })

  it('hands the bytes over in order, a chunk at a time, where the host has no paths', async () => {
    const bytes = new Uint8Array(chunkBytes * 2 + 10).map((_, index) => index % 256)
    const chunks: Uint8Array[] = []
    const bridge = new BridgeDouble()
      .answer('outbox.stageFile', async () => ({
        ok: true,
        value: {
          stagedId: 's1',
          name: 'plate.csv',
          size: bytes.length,
          received: 0,
          complete: false,
        },
      }))
      .answer('outbox.stageChunk', async () => {
        const { data } = bridge.calls.at(-1)!.args as { data: string }
        chunks.push(Uint8Array.from(atob(data), (char) => char.charCodeAt(0)))
        return {
          ok: true,
          value: {
            stagedId: 's1',
            name: 'plate.csv',
            size: bytes.length,
            received: 0,
            complete: false,
          },
        }
      })
      .answer('outbox.queueStaged', async () => ({ ok: true, value: [itemView()] }))
    const progress: HandOverProgress[] = []
    const result = await queueWithFiles(bridge, [new File([bytes], 'plate.csv')], attach, (next) =>
      progress.push(next),
    )
    expect(result.ok).toBe(true)
    expect(argsOf(bridge, 'outbox.stageFile')).toEqual([{ name: 'plate.csv', size: bytes.length }])
    expect(
      argsOf(bridge, 'outbox.stageChunk').map((args) => (args as { offset: number }).offset),
    ).toEqual([0, chunkBytes, chunkBytes * 2])
    const joined = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0))
    chunks.reduce((offset, chunk) => (joined.set(chunk, offset), offset + chunk.length), 0)
    expect(joined).toEqual(bytes)
    expect(progress.at(-1)).toEqual({ sentBytes: bytes.length, totalBytes: bytes.length })
    expect(argsOf(bridge, 'outbox.queueStaged')).toEqual([{ request: attach(['staged:s1']) }])
  })

  it('drops what it staged when the hand-over or the queueing fails', async () => {
    const bridge = new BridgeDouble()
      .answer('outbox.stageFile', async () => ({
        ok: true,
        value: { stagedId: 's2', name: 'a.csv', size: 1, received: 0, complete: false },
      }))
      .answer('outbox.stageChunk', async () => ({ ok: true, value: {} as never }))
      .answer('outbox.queueStaged', async () => ({
        ok: false,
        error: { code: 'invalid_argument', message: 'a.csv cannot be imported' },
      }))
      .answer('outbox.unstageFile', async () => ({ ok: true, value: { discarded: true } }))
    const result = await queueWithFiles(bridge, [new File(['a'], 'a.csv')], attach)
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'a.csv cannot be imported' },
    })
    expect(argsOf(bridge, 'outbox.unstageFile')).toEqual([{ stagedId: 's2' }])
  })
})
