import { z } from 'zod'
import { recordRef } from './common.ts'

/** What a file may be attached to (spec: readout rows cannot take files; their run can). */
const fileTargetKinds = ['molecule', 'run', 'protocol', 'eln_entry'] as const
export type FileTargetKind = (typeof fileTargetKinds)[number]

export const fileAttachment = z
  .object({ target: z.object({ kind: z.enum(fileTargetKinds), ref: recordRef }).strict() })
  .strict()
export type FileAttachmentPayload = z.infer<typeof fileAttachment>
