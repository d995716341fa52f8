/** Bytes as base64 (RFC 4648, padded), in slices so that large chunks do not overflow the stack. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = ''
  const slice = 0x8000
  for (let start = 0; start < bytes.length; start += slice) {
    binary += String.fromCharCode(...bytes.subarray(start, start + slice))
  }
  return btoa(binary)
}
