export const appChannels = [
  'app.info',
  'app.status',
  'app.notices',
  'app.dismissNotice',
  'app.chooseSavePath',
  'app.chooseFolder',
  'app.showInFolder',
] as const
export type AppChannel = (typeof appChannels)[number]
