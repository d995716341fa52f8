import { describe, expect, it } from 'vitest'
import { safeExternalUrl } from './external-url.ts'

describe('safeExternalUrl', () => {
  it('keeps https addresses', () => {
    expect(safeExternalUrl(' https://vault.example.org/vaults/1/eln/entries/1 ')).toBe(
      'https://vault.example.org/vaults/1/eln/entries/1',
    )
  })

  it('refuses everything else', () => {
    expect(safeExternalUrl('http://vault.example.org')).toBeNull()
    expect(safeExternalUrl('javascript:alert(1)')).toBeNull()
    expect(safeExternalUrl('file:///etc/passwd')).toBeNull()
    expect(safeExternalUrl('not a url')).toBeNull()
    expect(safeExternalUrl(42)).toBeNull()
  })
})
