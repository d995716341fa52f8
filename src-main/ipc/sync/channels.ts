export const syncChannels = [
  'sync.start',
  'sync.cancel',
  'sync.state',
  'sync.settings',
  'sync.configure',
] as const
export type SyncChannel = (typeof syncChannels)[number]
