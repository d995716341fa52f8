export const connectionChannels = ['connections.list'] as const
export type ConnectionChannel = (typeof connectionChannels)[number]
