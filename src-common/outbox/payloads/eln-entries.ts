import { z } from 'zod'
import { fieldValues, nonEmptyText, projectRef, recordRef } from './common.ts'

export const newEntry = z
  .object({ title: nonEmptyText, project: projectRef, eln_fields: fieldValues.optional() })
  .strict()
export type NewElnEntry = z.infer<typeof newEntry>

export const entryEdit = z
  .object({ entry: recordRef, title: nonEmptyText.optional(), eln_fields: fieldValues.optional() })
  .strict()
  .refine((edit) => edit.title !== undefined || edit.eln_fields !== undefined, {
    message: 'change the title or a field',
  })
export type ElnEntryEdit = z.infer<typeof entryEdit>

const bodyBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: nonEmptyText }).strict(),
  z
    .object({
      type: z.literal('link'),
      url: z.url({ message: 'a link needs a URL such as https://example.org/page' }),
      label: z.string().optional(),
    })
    .strict(),
  /** A file attached to the entry: by server id, or the item that uploads it. */
  z.object({ type: z.literal('file'), file: recordRef }).strict(),
])

export const entryAppend = z
  .object({ entry: recordRef, body: z.array(bodyBlock).min(1, 'append at least one block') })
  .strict()
export type ElnEntryAppend = z.infer<typeof entryAppend>

/** The status moves of docs/spec/gaps.md: each action's starting and resulting status. */
export const statusMoves = {
  submit: { from: 'open', to: 'submitted' },
  approve: { from: 'submitted', to: 'finalized' },
  reject: { from: 'submitted', to: 'open' },
  cancel: { from: 'submitted', to: 'open' },
  finalize: { from: 'open', to: 'finalized' },
  reopen: { from: 'finalized', to: 'open' },
  discard: { from: 'open', to: 'discarded' },
} as const

export const statusChange = z
  .object({
    entry: recordRef,
    status_action: z.enum(Object.keys(statusMoves) as [keyof typeof statusMoves]),
    witness: z.union([z.int().positive(), nonEmptyText]).optional(),
    reason: nonEmptyText.optional(),
  })
  .strict()
  .refine((change) => change.status_action !== 'submit' || change.witness !== undefined, {
    message: 'submit needs a witness',
    path: ['witness'],
  })
  .refine(
    (change) => !['reject', 'reopen'].includes(change.status_action) || change.reason !== undefined,
    { message: 'reject and reopen need a reason', path: ['reason'] },
  )
export type ElnStatusChange = z.infer<typeof statusChange>
