export const vaultChannels = ['vaults.list'] as const
export type VaultChannel = (typeof vaultChannels)[number]
