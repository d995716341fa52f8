import { describe, expect, it } from 'vitest'
import { signedLeb128, unsignedLeb128 } from './wasm-encoding.ts'

describe('LEB128', () => {
  it('encodes unsigned numbers as the WebAssembly specification shows', () => {
    expect(unsignedLeb128(0)).toEqual([0x00])
    expect(unsignedLeb128(127)).toEqual([0x7f])
    expect(unsignedLeb128(128)).toEqual([0x80, 0x01])
    expect(unsignedLeb128(624485)).toEqual([0xe5, 0x8e, 0x26])
    expect(unsignedLeb128(65536)).toEqual([0x80, 0x80, 0x04])
  })

  it('encodes signed numbers with their sign bit', () => {
    expect(signedLeb128(0)).toEqual([0x00])
    expect(signedLeb128(63)).toEqual([0x3f])
    expect(signedLeb128(64)).toEqual([0xc0, 0x00])
    expect(signedLeb128(256)).toEqual([0x80, 0x02])
    expect(signedLeb128(-1)).toEqual([0x7f])
    expect(signedLeb128(-123456)).toEqual([0xc0, 0xbb, 0x78])
  })
})
