export const resultsChannels = ['results.catalogue', 'results.table'] as const
export type ResultsChannel = (typeof resultsChannels)[number]
