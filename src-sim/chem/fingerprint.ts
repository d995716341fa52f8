/** Tanimoto similarity of two bit fingerprints of the same length. */
const bitCounts = new Uint8Array(256).map((_, value) => {
  let count = 0
  for (let bits = value; bits; bits >>= 1) count += bits & 1
  return count
})

export function tanimoto(a: Uint8Array, b: Uint8Array): number {
  let both = 0
  let either = 0
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) {
    const x = a[index]!
    const y = b[index]!
    both += bitCounts[x & y]!
    either += bitCounts[x | y]!
  }
  return either === 0 ? 0 : both / either
}
