export const watchChannels = [
  'watch.list',
  'watch.add',
  'watch.update',
  'watch.remove',
  'watch.files',
  'watch.decide',
] as const
export type WatchChannel = (typeof watchChannels)[number]
