import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startVaultSim, type VaultSim } from '../../../src-sim/index.ts'
import { cast, createMolecule, idOf } from '../fixtures.ts'
import { list, raw, record } from '../http.ts'
import { batchesIn } from './assay-fixture.ts'

let sim: VaultSim
let api: ReturnType<typeof cast>

beforeAll(async () => {
  sim = await startVaultSim({ seed: 16 })
  api = cast(sim)
})

afterAll(() => sim.stop())

/** A new molecule with two batches, so that moving one batch leaves the molecule a batch. */
async function moleculeWithTwoBatches(
  smiles: string,
): Promise<{ moleculeId: number; batchIds: number[] }> {
  const molecule = await createMolecule(api.admin, api.main, {
    name: `M-${smiles}`,
    smiles,
    projects: [api.projects.kinase.id],
  })
  const batchIds: number[] = []
  for (const name of ['001', '002']) {
    const batch = await api.admin.post(`${api.main}/batches`, {
      name,
      projects: [api.projects.kinase.id],
      molecule: { id: idOf(molecule) },
    })
    expect(batch.status).toBe(200)
    batchIds.push(idOf(record(batch)))
  }
  return { moleculeId: idOf(molecule), batchIds }
}

const createJob = (body: Record<string, unknown>) =>
  api.admin.post(`${api.main}/batch_move_jobs`, body)
const job = async (id: number) => record(await api.admin.get(`${api.main}/batch_move_jobs/${id}`))

describe('batch move jobs', () => {
  it('move a batch through requested, queued, processing and success', async () => {
    const source = await moleculeWithTwoBatches('CCOC(=O)c1ccccc1')
    const target = batchesIn(sim, api.projects.kinase.id)[0]!
    const created = record(
      await createJob({ batch: source.batchIds[1], molecule: target.moleculeId, name: 'moved-1' }),
    )
    expect(created).toMatchObject({
      class: 'batch move job',
      batch: source.batchIds[1],
      molecule: target.moleculeId,
      name: 'moved-1',
      fail_on_molecule_deletion: true,
      requested_by: api.users.admin.id,
      status: 'requested',
      queued_job_position: 1,
    })
    const id = idOf(created)
    const statuses = [created.status]
    for (const step of [600, 500, 2000]) {
      sim.clock.advance(step)
      statuses.push((await job(id)).status)
    }
    expect(statuses).toEqual(['requested', 'queued', 'processing', 'success'])
    const batch = record(await api.admin.get(`${api.main}/batches/${source.batchIds[1]}`))
    expect(batch).toMatchObject({
      name: 'moved-1',
      molecule: expect.objectContaining({ id: target.moleculeId }),
    })
    expect((await job(id)).status_message).toContain(`now belongs to molecule ${target.moleculeId}`)
  })

  it('run one at a time in order, with queue positions', async () => {
    const first = await moleculeWithTwoBatches('CCOC(=O)c1ccncc1')
    const second = await moleculeWithTwoBatches('CCOC(=O)c1cccnc1')
    const target = batchesIn(sim, api.projects.kinase.id)[1]!.moleculeId
    const a = idOf(record(await createJob({ batch: first.batchIds[0], molecule: target })))
    const b = record(await createJob({ batch: second.batchIds[0], molecule: target }))
    expect(b.queued_job_position).toBe(2)
    sim.clock.advance(600)
    expect([(await job(a)).status, (await job(idOf(b))).status]).toEqual(['queued', 'queued'])
    sim.clock.advance(500)
    expect([(await job(a)).status, (await job(idOf(b))).status]).toEqual(['processing', 'queued'])
    sim.clock.advance(2000)
    expect([(await job(a)).status, (await job(idOf(b))).status]).toEqual(['success', 'processing'])
    expect(record(await api.admin.get(`${api.main}/status`)).any_executing_batch_move_job).toBe(
      true,
    )
    sim.clock.advance(2000)
    expect((await job(idOf(b))).status).toBe('success')
    expect(list(await api.admin.get(`${api.main}/batch_move_jobs`)).map(idOf)).toEqual(
      expect.arrayContaining([a, idOf(b)]),
    )
  })

  it('fail when the move would delete the originating molecule, and delete it when allowed', async () => {
    const [lonely, target] = batchesIn(sim, api.projects.kinase.id).slice(2, 4)
    const id = idOf(record(await createJob({ batch: lonely!.id, molecule: target!.moleculeId })))
    sim.clock.advance(3500)
    const failed = await job(id)
    expect(failed.status).toBe('failure')
    expect(failed.status_message).toContain('fail_on_molecule_deletion')
    expect((await api.admin.get(`${api.main}/molecules/${lonely!.moleculeId}`)).status).toBe(200)

    const form = new FormData()
    form.append('file', new Blob(['spectrum']), 'nmr.txt')
    form.append('resource_class', 'molecule')
    form.append('resource_id', String(lonely!.moleculeId))
    const attached = await raw(sim.baseUrl, 'POST', `${api.main}/files`, {
      token: api.users.admin.tokens[0],
      rawBody: { bytes: form },
    })
    expect(attached.status).toBe(200)
    const allowed = idOf(
      record(
        await createJob({
          batch: lonely!.id,
          molecule: target!.moleculeId,
          fail_on_molecule_deletion: false,
        }),
      ),
    )
    sim.clock.advance(3500)
    const done = await job(allowed)
    expect(done.status).toBe('success')
    expect(done.status_message).toContain(`molecule ${lonely!.moleculeId}, left without batches`)
    expect((await api.admin.get(`${api.main}/molecules/${lonely!.moleculeId}`)).status).toBe(404)
    const remaining = await api.admin.post(`${api.main}/molecules/query`, {
      only_ids: true,
    })
    expect(record(remaining).objects).not.toContain(lonely!.moleculeId)
    expect((await api.admin.get(`${api.main}/files/${idOf(record(attached))}`)).status).toBe(404)
    const [moved] = record(
      await api.admin.post(`${api.main}/molecules/query`, { molecules: [target!.moleculeId] }),
    ).objects as Record<string, unknown>[]
    expect((moved!.batches as Record<string, unknown>[]).map(idOf)).toContain(lonely!.id)
  })

  it('cancel a job that has not started and answer 405 with the unchanged job once it has', async () => {
    const source = await moleculeWithTwoBatches('CCOC(=O)c1ccco1')
    const target = batchesIn(sim, api.projects.kinase.id)[4]!.moleculeId
    const pending = idOf(record(await createJob({ batch: source.batchIds[0], molecule: target })))
    const canceled = await api.admin.delete(`${api.main}/batch_move_jobs/${pending}`)
    expect(canceled.status).toBe(200)
    expect(record(canceled).status).toBe('canceled')
    const started = idOf(record(await createJob({ batch: source.batchIds[1], molecule: target })))
    sim.clock.advance(1200)
    const refused = await api.admin.delete(`${api.main}/batch_move_jobs/${started}`)
    expect(refused.status).toBe(405)
    expect(record(refused)).toMatchObject({ id: started, status: 'processing' })
    sim.clock.advance(3000)
    const finished = await api.admin.delete(`${api.main}/batch_move_jobs/${started}`)
    expect(finished.status).toBe(405)
    expect(record(finished).status).toBe('success')
  })

  it('answer 422 for bad create bodies, 404 for unknown jobs, 401 to non-administrators', async () => {
    const [batch] = batchesIn(sim, api.projects.gpcr.id)
    const cases: [Record<string, unknown>, string][] = [
      [{ molecule: batch!.moleculeId }, 'batch is required'],
      [{ batch: batch!.id }, 'molecule is required'],
      [{ batch: 999999, molecule: batch!.moleculeId }, 'batch 999999 is not a batch'],
      [{ batch: batch!.id, molecule: 999999 }, 'molecule 999999 is not a molecule'],
      [{ batch: batch!.id, molecule: batch!.moleculeId }, 'already belongs to molecule'],
      [{ batch: batch!.id, molecule: 1, priority: 'high' }, "'priority' is not a known parameter"],
    ]
    for (const [body, message] of cases) {
      const answer = await createJob(body)
      expect(answer.status, JSON.stringify(body)).toBe(422)
      expect(record(answer).error).toContain(message)
    }
    expect((await api.admin.get(`${api.main}/batch_move_jobs/999999`)).status).toBe(404)
    expect((await api.admin.delete(`${api.main}/batch_move_jobs/999999`)).status).toBe(404)
    expect((await api.writer.get(`${api.main}/batch_move_jobs`)).status).toBe(401)
    expect(
      (await api.writer.post(`${api.main}/batch_move_jobs`, { batch: batch!.id, molecule: 1 }))
        .status,
    ).toBe(401)
  })

  it('refuse a new batch name in a vault with a registration system', async () => {
    const register = async (smiles: string): Promise<Record<string, unknown>> => {
      const answer = await api.admin.post(`${api.ai}/batches`, {
        projects: [api.projects.aiExploration.id],
        batch_fields: { 'Purity (%)': 99, Chemist: 'A. Lovelace' },
        molecule: { smiles },
      })
      expect(answer.status, JSON.stringify(answer.json)).toBe(200)
      return record(answer)
    }
    const first = await register('c1ccc2ncccc2c1')
    const second = await register('c1ccc2cnccc2c1')
    const answer = await api.admin.post(`${api.ai}/batch_move_jobs`, {
      batch: idOf(first),
      molecule: idOf(second.molecule as Record<string, unknown>),
      name: 'renamed',
    })
    expect(answer.status).toBe(422)
    expect(record(answer).error).toContain(
      'name can only be given in vaults without a registration system',
    )
  })
})
