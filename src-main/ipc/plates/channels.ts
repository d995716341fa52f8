export const platesChannels = ['plates.quality', 'plates.ofRun'] as const
export type PlatesChannel = (typeof platesChannels)[number]
