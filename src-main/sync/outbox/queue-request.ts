import { z } from 'zod'
import { attachTargets } from '../../../src-common/outbox/attach-targets.ts'
import {
  operationDeclarations,
  operationNames,
  type PayloadOf,
  type PayloadRequestName,
} from '../../../src-common/outbox/operations.ts'
import { recordRef } from '../../../src-common/outbox/payloads/common.ts'
import { importSettings } from '../../../src-common/outbox/payloads/imports.ts'
import { operations } from './operations/index.ts'

/** Where a queued item goes: a saved connection and one of its vaults. */
const destination = {
  connectionId: z.string().min(1),
  vaultId: z.int().positive(),
}

/** A local path of a file to queue (in Electron: `window.vaultDesk.pathForFile(file)`). */
const localFile = z.string().min(1, 'give the path of the file')

/**
 * The modified_at of the record when editing began; without it, the outbox takes the one of the
 * record's earlier queued edits or of the cached copy.
 */
const baseModifiedAt = z.string().min(1).nullable().optional()

/** A file dropped onto a readout row goes to the row's run (the spec allows no files on rows). */
const attachTarget = z.object({ kind: z.enum(attachTargets), ref: recordRef }).strict()

/** An ELN body block; a file is given by its local path and is uploaded first. */
const appendBlock = z.union([
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('link'), url: z.string(), label: z.string().optional() }).strict(),
  z.object({ type: z.literal('file'), file: recordRef }).strict(),
  z.object({ type: z.literal('file'), path: localFile }).strict(),
])

/** The operations whose request names local files (`request: 'own'` in their declarations). */
const fileAttachRequest = z
  .object({
    ...destination,
    operation: z.literal('file.attach'),
    file: localFile,
    target: attachTarget,
  })
  .strict()
const importRequest = z
  .object({
    ...destination,
    operation: z.literal('slurp.create'),
    file: localFile,
    payload: importSettings,
  })
  .strict()
const appendRequest = z
  .object({
    ...destination,
    operation: z.literal('eln.append'),
    entry: recordRef,
    body: z.array(appendBlock).min(1, 'append at least one block'),
  })
  .strict()

type Declarations = typeof operationDeclarations

/**
 * A change queued with its operation's own payload; an edit of a record also with the
 * modified_at seen when editing began.
 */
type PayloadRequest = {
  [N in PayloadRequestName]: {
    connectionId: string
    vaultId: number
    operation: N
    payload: PayloadOf<N>
  } & (Declarations[N]['request'] extends 'edit' ? { baseModifiedAt?: string | null } : unknown)
}[PayloadRequestName]

/** Everything the UI and the command line can queue. */
export type QueueRequest =
  | z.infer<typeof fileAttachRequest>
  | z.infer<typeof importRequest>
  | z.infer<typeof appendRequest>
  | PayloadRequest

/**
 * The requests of the other operations, made from their declarations: each payload is checked
 * by its operation's own schema (`operations/*.ts`), which names the member at fault.
 */
const payloadRequests = operationNames.flatMap((name) => {
  const { request } = operationDeclarations[name]
  if (request === 'own') return []
  const payload = operations[name].schema
  return [
    z
      .object({
        ...destination,
        operation: z.literal(name),
        payload,
        ...(request === 'edit' ? { baseModifiedAt } : {}),
      })
      .strict(),
  ]
})

export const queueRequest = z.discriminatedUnion('operation', [
  fileAttachRequest,
  importRequest,
  appendRequest,
  ...payloadRequests,
]) as unknown as z.ZodType<QueueRequest, QueueRequest>
