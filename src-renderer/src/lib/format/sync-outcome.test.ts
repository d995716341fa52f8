import { describe, expect, it } from 'vitest'
import type { ConnectionSyncState } from '../bridge.ts'
import { describeOutcome } from './sync-outcome.ts'

const state = (change: Partial<ConnectionSyncState>): ConnectionSyncState => ({
  connectionId: 'c1',
  running: false,
  startedAt: null,
  finishedAt: null,
  progress: null,
  lastOutcome: null,
  lastError: null,
  nextSyncAt: null,
  ...change,
})

describe('describeOutcome', () => {
  it('says what happened and when', () => {
    expect(describeOutcome(state({}))).toBe('Not synced yet')
    expect(describeOutcome(state({ running: true }))).toBe('Running now')
    expect(
      describeOutcome(
        state({ lastOutcome: 'completed', finishedAt: '2026-07-24T17:00:00Z' }),
        'en-GB',
      ),
    ).toMatch(/^Completed 2[45] Jul 2026/)
    expect(describeOutcome(state({ lastOutcome: 'offline' }))).toBe(
      'Stopped: the vault did not answer',
    )
    expect(describeOutcome(state({ lastOutcome: 'needs_token' }))).toBe(
      'Stopped: the vault refused the token',
    )
  })

  it('gives the reason of a failure', () => {
    expect(
      describeOutcome(
        state({ lastOutcome: 'failed', lastError: { code: 'storage', message: 'disk is full' } }),
      ),
    ).toBe('Failed: disk is full')
  })
})
