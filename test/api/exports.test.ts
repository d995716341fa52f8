import { describe, expect, it, vi } from 'vitest'
import type { VaultClient } from '../../src-main/api/client.ts'
import { FinishedExport, unclaimedExportMs } from '../../src-main/api/export-runner.ts'
import type { ExportsApi } from '../../src-main/api/resources/exports.ts'
import type { Molecule } from '../../src-main/api/resources/molecules.ts'
import { collect, expectApiError, useSim } from './support/sim.ts'

const hour = 3_600_000
// Exports here stay "started" until a test moves the simulator clock on by an hour.
const harness = useSim({ exportTiming: { startDelayMs: 0, durationMs: hour } })

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** Starts a molecule export and answers as soon as the server has given it an id. */
async function startExport(client: VaultClient, signal?: AbortSignal) {
  let exportId: number | undefined
  const finished: Promise<FinishedExport<Molecule>> = client.molecules.export(
    harness.vaults.main,
    { projects: [harness.projects.gpcr] },
    {
      onProgress: (progress) => (exportId ??= progress.id ?? undefined),
      ...(signal ? { signal } : {}),
    },
  )
  // Keeps an expected rejection from being reported as unhandled while the test looks elsewhere.
  finished.catch(() => {})
  await until(() => exportId !== undefined)
  return { exportId: exportId!, finished }
}

describe('exports', () => {
  it('shows progress, lists active exports, refuses an early download, then finishes', async () => {
    const client = harness.client()
    const vault = harness.vaults.main
    const { exportId, finished } = await startExport(client)
    expect((await client.exports.progress(vault, exportId)).status).toBe('started')
    const active = await client.exports.active(vault)
    expect(active.map((item) => item.id)).toContain(exportId)
    const early = await expectApiError(client.exports.download(vault, exportId), 'forbidden', 403)
    expect(early.details).toMatchObject({ status: 'started' })
    harness.sim.clock.advance(hour)
    const records = await collect((await finished).records())
    expect(records.length).toBeGreaterThan(0)
    const late = await expectApiError(client.exports.cancel(vault, exportId), 'conflict', 405)
    expect(late.details).toMatchObject({ id: exportId, status: 'finished' })
  })

  it('answers 404 for an export that does not exist', async () => {
    const exports = harness.client().exports
    await expectApiError(exports.progress(harness.vaults.main, 999_999), 'not_found', 404)
    await expectApiError(exports.download(harness.vaults.main, 999_999), 'not_found', 404)
    await expectApiError(exports.cancel(harness.vaults.main, 999_999), 'not_found', 404)
  })

  it('reports an export canceled on the server instead of waiting for it', async () => {
    const { exportId, finished } = await startExport(harness.client())
    const canceled = await harness.client().exports.cancel(harness.vaults.main, exportId)
    expect(canceled.status).toBe('canceled')
    const error = await expectApiError(finished, 'export_failed')
    expect(error.message).toContain(`export ${exportId} ended with status "canceled"`)
  })

  it('reports an export that fails on the server instead of waiting for it', async () => {
    const { exportId, finished } = await startExport(harness.client())
    harness.sim.core.db
      .prepare(`UPDATE exports SET status = 'failed', failure = 'disk full' WHERE id = ?`)
      .run(exportId)
    const error = await expectApiError(finished, 'export_failed')
    expect(error.message).toContain('"failed"')
    expect(error.details).toMatchObject({ status: 'failed' })
  })

  it('cancels the export on the server when the caller gives up waiting', async () => {
    const client = harness.client()
    const controller = new AbortController()
    const { exportId, finished } = await startExport(client, controller.signal)
    controller.abort()
    await expectApiError(finished, 'cancelled')
    await until(() => false === ['new', 'started'].includes(String(exportStatus(exportId))))
    expect(exportStatus(exportId)).toBe('canceled')
  })

  it('runs at most 3 exports at once, each until its file is read, and queues the rest locally', async () => {
    const client = harness.client('writer')
    const vault = harness.vaults.main
    const user = harness.sim.cast.users.writer.id
    harness.sim.resetStats()
    const before = exportCount(user)
    const finished: FinishedExport<Molecule>[] = []
    const runs = Array.from({ length: 5 }, () =>
      client.molecules.export(vault, { projects: [harness.projects.kinase] }).then((run) => {
        finished.push(run)
        return run
      }),
    )
    await until(() => activeCount(user) === 3)
    // Polls go on meanwhile; none of them may have started a fourth export.
    const pollsBefore = harness.sim.stats.requests
    await until(() => harness.sim.stats.requests > pollsBefore + 20)
    expect(activeCount(user)).toBe(3)
    harness.sim.clock.advance(hour)
    await until(() => finished.length === 3)
    // Finished on the server, their files not read: still the user's, so none more starts.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(exportCount(user) - before).toBe(3)
    // Read, or let go: each gives its place to one waiting.
    await collect(finished[0]!.records())
    await until(() => activeCount(user) === 1)
    finished[1]!.release()
    await until(() => activeCount(user) === 2)
    expect(exportCount(user) - before).toBe(5)
    harness.sim.clock.advance(hour)
    const all = await Promise.all(runs)
    for (const run of all) run.release()
    expect(new Set(all.map((run) => run.exportId)).size).toBe(5)
    expect(harness.sim.stats.exportQueueRejections).toBe(0)
  })
})

function exportStatus(exportId: number): unknown {
  const row = harness.sim.core.db.prepare(`SELECT status FROM exports WHERE id = ?`).get(exportId)
  return (row as { status: string } | undefined)?.status
}

describe('a finished export nobody reads', () => {
  it('gives its place back after a minute, and only once', () => {
    vi.useFakeTimers()
    try {
      let releases = 0
      const place = { release: () => releases++ }
      // Nothing is downloaded: the server is never asked.
      const unused = {} as ExportsApi
      const progress = { id: 7, status: 'finished' }
      const finished = new FinishedExport(unused, 'molecules.export', 1, 7, progress, String, place)
      vi.advanceTimersByTime(unclaimedExportMs - 1)
      expect(releases).toBe(0)
      vi.advanceTimersByTime(1)
      expect(releases).toBe(1)
      finished.release()
      expect(releases).toBe(1)
    } finally {
      vi.useRealTimers()
    }
  })
})

function exportCount(userId: number): number {
  const row = harness.sim.core.db
    .prepare(`SELECT COUNT(*) AS count FROM exports WHERE user_id = ?`)
    .get(userId) as { count: number }
  return row.count
}

function activeCount(userId: number): number {
  const row = harness.sim.core.db
    .prepare(
      `SELECT COUNT(*) AS count FROM exports WHERE user_id = ? AND status IN ('new', 'started')`,
    )
    .get(userId) as { count: number }
  return row.count
}
