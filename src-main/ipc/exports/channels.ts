export const exportChannels = ['exports.start', 'exports.startResults', 'exports.cancel'] as const
export type ExportChannel = (typeof exportChannels)[number]
