import { describe, expect, it } from 'vitest'
import { readKindCursor } from '../../src-main/sync/kind-cursor.ts'
import { pull, useClockedDemoVault } from './support.ts'

const demo = useClockedDemoVault()

const projectName = (id: number) => demo.cache.get('projects', demo.main, id)?.name

describe('reference data and deletion checks on a slower cadence', () => {
  it('waits for the refresh to read reference data and deletions; changes come at every pass', async () => {
    const project = (await demo.client.projects.list(demo.main))[0]!
    await demo.client.projects.update(demo.main, project.id, { name: 'Renamed between refreshes' })
    const collection = (await demo.client.collections.query(demo.main, { page_size: 1 }))
      .objects[0]!
    await demo.client.collections.delete(demo.main, collection.id)
    const molecule = demo.cache.list('molecules', demo.main, { sort: 'id', limit: 1 }).records[0]!
    demo.sim.clock.advance(2000)
    await demo.client.molecules.update(demo.main, Number(molecule.id), { description: 'changed' })

    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    expect(demo.cache.get('molecules', demo.main, Number(molecule.id))?.description).toBe('changed')
    expect(projectName(project.id)).toBe(project.name)
    expect(demo.cache.get('collections', demo.main, collection.id)).not.toBeNull()

    // Due once the refresh interval has passed since the last check.
    await pull(demo.client, demo.cache, { vaultIds: [demo.main], referenceRefreshMs: 0 })
    expect(projectName(project.id)).toBe('Renamed between refreshes')
    expect(demo.cache.get('collections', demo.main, collection.id)).toBeNull()
    expect(
      Date.parse(readKindCursor(demo.cache.cursor('projects', demo.main)).checkedAt!),
    ).not.toBeNaN()
  })

  it('keeps each mapping template with its column mappings, for checking imports offline', async () => {
    await pull(demo.client, demo.cache, { vaultIds: [demo.main], refreshAll: true })
    const summaries = await demo.client.mappingTemplates.list(demo.main)
    expect(summaries.length).toBeGreaterThan(0)
    for (const summary of summaries) {
      const detail = await demo.client.mappingTemplates.get(demo.main, summary.id)
      expect(demo.cache.get('mapping_templates', demo.main, summary.id)).toMatchObject({
        name: summary.name,
        header_mappings: detail.header_mappings,
      })
    }
    expect(summaries.some((summary) => summary.header_mappings === undefined)).toBe(true)
  })

  it('reads everything at once when asked, due or not', async () => {
    const project = (await demo.client.projects.list(demo.main))[0]!
    await demo.client.projects.update(demo.main, project.id, {
      name: 'Renamed, then synced on demand',
    })
    await pull(demo.client, demo.cache, { vaultIds: [demo.main], refreshAll: true })
    expect(projectName(project.id)).toBe('Renamed, then synced on demand')
  })

  it('reads runs, protocols and curves in a pass whose readout rows changed', async () => {
    const runs = demo.cache.list('runs', demo.main, { limit: 1000 }).records
    expect(runs.length).toBeGreaterThan(0)
    // Plate statistics come only with a single run; the first sync fetched them.
    expect(runs.every((run) => Array.isArray(run.plate_statistics))).toBe(true)
    const [row] = (await demo.client.readoutRows.query(demo.main, { type: 'detail', page_size: 1 }))
      .objects
    const runId = Number((row!.run as { id: number }).id)
    const definition = Object.keys(row!.readouts as object)[0]!
    demo.sim.clock.advance(2000)
    await demo.client.readoutRows.update(demo.main, row!.id, {
      readouts: { [definition]: { outlier: true } },
    })
    demo.sim.resetStats()

    await pull(demo.client, demo.cache, { vaultIds: [demo.main] })
    const asked = demo.sim.stats.byOperation
    expect(asked['POST /vaults/{vault_id}/runs/query']).toBeGreaterThan(0)
    expect(asked['POST /vaults/{vault_id}/protocols/query']).toBeGreaterThan(0)
    expect(asked['GET /vaults/{vault_id}/runs/{id}']).toBeGreaterThan(0)
    expect(asked['GET /vaults/{vault_id}/projects']).toBeUndefined()
    // The run listing replaced the run, which kept the statistics its listing lacks.
    expect(Array.isArray(demo.cache.get('runs', demo.main, runId)?.plate_statistics)).toBe(true)
  })
})
