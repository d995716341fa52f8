export const searchesChannels = [
  'searches.list',
  'searches.run',
  'searches.propose',
  'searches.save',
  'searches.runOnVault',
  'searches.cancelVaultRun',
] as const
export type SearchesChannel = (typeof searchesChannels)[number]
