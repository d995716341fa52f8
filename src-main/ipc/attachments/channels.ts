export const attachmentChannels = [
  'attachments.forRecord',
  'attachments.states',
  'attachments.fetchNow',
  'attachments.open',
  'attachments.localPath',
  'attachments.preview',
  'attachments.remove',
  'attachments.budget',
  'attachments.setBudget',
] as const
export type AttachmentChannel = (typeof attachmentChannels)[number]
