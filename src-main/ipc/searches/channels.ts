export const searchesChannels = ['searches.list', 'searches.run'] as const
export type SearchesChannel = (typeof searchesChannels)[number]
