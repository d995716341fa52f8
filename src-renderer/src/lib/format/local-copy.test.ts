import { describe, expect, it } from 'vitest'
import { describeLocalCopy } from './local-copy.ts'

describe('describeLocalCopy', () => {
  it('says whose copy it is, with both formats, that nothing was changed, and what to do', () => {
    const text = describeLocalCopy({ reason: 'newer_version', schema: 14, known: 11 })
    expect(text).toContain('written by a newer version of Vault Desk')
    expect(text).toContain('format 14; this version reads up to 11')
    expect(text).toContain('nothing in it was changed or lost')
    expect(text).toContain('Open the newer Vault Desk')
  })
})
