export const curvesChannels = ['curves.ofProtocol', 'curves.ofBatch'] as const
export type CurvesChannel = (typeof curvesChannels)[number]
