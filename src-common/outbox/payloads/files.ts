import { z } from 'zod'
import { fileTargets } from '../attach-targets.ts'
import { recordRef } from './common.ts'

/** A queued upload: the record it goes to (a readout row's file was sent to the row's run). */
export const fileAttachment = z
  .object({ target: z.object({ kind: z.enum(fileTargets), ref: recordRef }).strict() })
  .strict()
export type FileAttachmentPayload = z.infer<typeof fileAttachment>
