/**
 * The pull plans, assembled from each kind's declared `pull` and the calls of the API resource
 * that serves it: the order, modes and options below are what sync relied on when they were one
 * hand-written list, and each call a plan makes must reach the right resource.
 */
import { describe, expect, it } from 'vitest'
import { kindPlansOf } from '../../src-main/sync/kind-plans.ts'
import { VaultClient, LimiterRegistry } from '../../src-main/api/index.ts'

const client = new VaultClient({
  baseUrl: 'http://127.0.0.1:9/api/v1',
  token: 'never-sent',
  limiters: new LimiterRegistry(),
})

describe('pull plans', () => {
  it('pull every kind in the order, mode and with the options sync relies on', () => {
    const summary = kindPlansOf(client).map((plan) => {
      const options: string[] = []
      if ('adminOnly' in plan && plan.adminOnly) options.push('admin only')
      if (plan.followsReadouts) options.push('follows readouts')
      if ('keep' in plan && plan.keep) options.push(`keeps ${plan.keep.join(', ')}`)
      if ('carries' in plan && plan.carries) options.push(`carries ${plan.carries}`)
      if ('onRefresh' in plan && plan.onRefresh) options.push('on refresh')
      if ('ids' in plan && plan.ids) options.push('ids')
      if ('exportAll' in plan && plan.exportAll) options.push('export')
      return [plan.kind, plan.mode, ...options].join(' ')
    })
    expect(summary).toEqual([
      'projects listed',
      'data_sets listed',
      'fields listed',
      'pick_list_values listed',
      'users listed admin only',
      'molecules incremental carries batches ids export',
      'batches incremental ids',
      'collections incremental ids',
      'readout_rows incremental ids export',
      'protocols paged follows readouts',
      'dose_response_calculations dose_response',
      'runs paged follows readouts keeps plate_statistics',
      'plates paged',
      'control_layouts incremental on refresh ids',
      'inventory_locations listed',
      'inventory_samples incremental',
      'eln_entries listed admin only',
      'saved_searches listed',
      'mapping_templates listed',
      'import_parsers listed',
      'registration_forms listed',
      'registration_systems listed',
      'vault_status listed admin only',
    ])
  })

  it('are made once per client', () => {
    expect(kindPlansOf(client)).toBe(kindPlansOf(client))
  })
})
