export const connectionChannels = [
  'connections.list',
  'connections.status',
  'connections.baseUrls',
  'connections.add',
  'connections.updateToken',
  'connections.remove',
] as const
export type ConnectionChannel = (typeof connectionChannels)[number]
