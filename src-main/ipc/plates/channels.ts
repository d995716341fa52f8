export const platesChannels = [
  'plates.quality',
  'plates.ofRun',
  'plates.resolveWells',
  'plates.sampleForm',
] as const
export type PlatesChannel = (typeof platesChannels)[number]
