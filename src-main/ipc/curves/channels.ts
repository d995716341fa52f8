export const curvesChannels = ['curves.ofProtocol', 'curves.ofBatch', 'curves.ofResults'] as const
export type CurvesChannel = (typeof curvesChannels)[number]
