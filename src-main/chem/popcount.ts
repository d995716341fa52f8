/** The number of set bits of a fingerprint. */
export function popcount(bytes: Uint8Array): number {
  let bits = 0
  for (const byte of bytes) {
    let rest = byte
    while (rest !== 0) {
      rest &= rest - 1
      bits++
    }
  }
  return bits
}
