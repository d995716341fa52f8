export const resultsChannels = [
  'results.catalogue',
  'results.table',
  'results.points',
  'results.summary',
] as const
export type ResultsChannel = (typeof resultsChannels)[number]
