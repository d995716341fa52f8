export const appChannels = ['app.info', 'app.status'] as const
export type AppChannel = (typeof appChannels)[number]
