/** The standard microplate formats a vault's plates come in, by their number of wells. */
export const plateFormats = {
  6: { rows: 2, columns: 3 },
  12: { rows: 3, columns: 4 },
  24: { rows: 4, columns: 6 },
  48: { rows: 6, columns: 8 },
  96: { rows: 8, columns: 12 },
  384: { rows: 16, columns: 24 },
  1536: { rows: 32, columns: 48 },
} as const satisfies Record<number, { rows: number; columns: number }>

export type PlateSize = keyof typeof plateFormats

export const plateSizes = Object.keys(plateFormats).map(Number) as PlateSize[]

export function isPlateSize(size: number): size is PlateSize {
  return Object.hasOwn(plateFormats, size)
}
