/** The sizes depictions are drawn at (plain data: the store and the contract use it too). */
export const depictionSizes = {
  thumbnail: { width: 160, height: 120 },
  detail: { width: 480, height: 360 },
} as const

export type DepictionSize = keyof typeof depictionSizes
