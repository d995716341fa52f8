export const chemChannels = [
  'chem.depict',
  'chem.depictMany',
  'chem.depictQuery',
  'chem.properties',
  'chem.indexState',
  'chem.serverTools',
  'chem.novelty',
] as const
export type ChemChannel = (typeof chemChannels)[number]
