/**
 * Colours for a plot's third column and the pixel values the raster draws with.
 *
 * The sequential scale is viridis (van der Walt and Smith, public domain): its lightness rises
 * steadily from one end to the other, so the order of values reads the same to people with any
 * colour-vision deficiency and in greyscale print. The 256 colours are matplotlib's own table.
 * Its darkest colours vanish on a dark surface and its lightest on a white one, so each scheme
 * uses the part of the scale that stands out from its background (the legend shows that part).
 */

const viridisTable =
  '44015444025645045745055946075a46085c460a5d460b5e470d60470e61471063471164471365481467481668481769' +
  '48186a481a6c481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a' +
  '472d7b472e7c472f7d46307e46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f85' +
  '4240864241864142874144874045884046883f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b' +
  '3b528b3a538b3a548c39558c39568c38588c38598c375a8c375b8d365c8d365d8d355e8d355f8d34608d34618d33628d' +
  '33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e' +
  '2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e277e8e277f8e27808e26818e' +
  '26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d218f8d21908d' +
  '21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f88' +
  '1fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad81' +
  '28ae8029af7f2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc74' +
  '3fbc7340bd7242be7144bf7046c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc863' +
  '5ec96260ca6063cb5f65cb5e67cc5c69cd5b6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d' +
  '84d44b86d54989d5488bd6468ed64590d74393d74195d84098d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32' +
  'addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021c8e020cae11fcde11dd0e11cd2e21bd5e21a' +
  'd8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61ef6e620f8e621fbe723fde725'

export type Rgb = readonly [red: number, green: number, blue: number]

export const viridis: readonly Rgb[] = Array.from({ length: 256 }, (_, index) => [
  Number.parseInt(viridisTable.slice(index * 6, index * 6 + 2), 16),
  Number.parseInt(viridisTable.slice(index * 6 + 2, index * 6 + 4), 16),
  Number.parseInt(viridisTable.slice(index * 6 + 4, index * 6 + 6), 16),
])

export type ColourScheme = 'light' | 'dark'

/** The part of viridis each scheme uses: [start, end] as fractions of the scale. */
export const viridisRange: Record<ColourScheme, readonly [number, number]> = {
  light: [0, 0.88],
  dark: [0.16, 1],
}

/** The colour of a position t in [0, 1] along the part of viridis a scheme uses. */
export function sequentialColour(t: number, scheme: ColourScheme): Rgb {
  const [start, end] = viridisRange[scheme]
  const clamped = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0
  const index = Math.round((start + clamped * (end - start)) * 255)
  return viridis[index]!
}

export function hex([red, green, blue]: Rgb): string {
  return `#${[red, green, blue].map((part) => part.toString(16).padStart(2, '0')).join('')}`
}

/** Mixes two colours: `amount` 0 gives the first, 1 the second. */
export function mix(from: Rgb, to: Rgb, amount: number): Rgb {
  return [
    Math.round(from[0] + (to[0] - from[0]) * amount),
    Math.round(from[1] + (to[1] - from[1]) * amount),
    Math.round(from[2] + (to[2] - from[2]) * amount),
  ]
}

/**
 * Reads a CSS colour as the design tokens write them (`#rgb`, `#rrggbb`, `rgb(r g b)` or
 * `rgb(r, g, b)`); null for anything else.
 */
export function parseColour(text: string): Rgb | null {
  const value = text.trim().toLowerCase()
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(value)
  if (short)
    return [short[1]!, short[2]!, short[3]!].map((d) =>
      Number.parseInt(d + d, 16),
    ) as unknown as Rgb
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/.exec(value)
  if (long)
    return [long[1]!, long[2]!, long[3]!].map((d) => Number.parseInt(d, 16)) as unknown as Rgb
  const functional = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/.exec(value)
  if (functional) {
    return [functional[1]!, functional[2]!, functional[3]!].map((d) =>
      Math.min(255, Number(d)),
    ) as unknown as Rgb
  }
  return null
}

/** Whether this machine stores the bytes of a 32-bit word lowest first (all that Vault Desk runs on). */
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * An opaque colour as one 32-bit word of an ImageData's pixels seen through a Uint32Array (whose
 * bytes are red, green, blue, alpha in memory order).
 */
export function pixel([red, green, blue]: Rgb): number {
  return littleEndian
    ? ((255 << 24) | (blue << 16) | (green << 8) | red) >>> 0
    : ((red << 24) | (green << 16) | (blue << 8) | 255) >>> 0
}

/** The colour a pixel word stands for (tests and read-backs). */
export function pixelColour(word: number): Rgb {
  return littleEndian
    ? [word & 255, (word >>> 8) & 255, (word >>> 16) & 255]
    : [word >>> 24, (word >>> 16) & 255, (word >>> 8) & 255]
}
