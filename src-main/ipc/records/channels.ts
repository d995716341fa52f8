export const recordChannels = [
  'records.kinds',
  'records.list',
  'records.distinct',
  'records.get',
  'records.search',
] as const
export type RecordChannel = (typeof recordChannels)[number]
