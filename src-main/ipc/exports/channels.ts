export const exportChannels = ['exports.start', 'exports.cancel'] as const
export type ExportChannel = (typeof exportChannels)[number]
