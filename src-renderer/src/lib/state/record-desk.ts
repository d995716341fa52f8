/**
 * What a record page's parts need to queue work on the record they show: the session, and the
 * connection and vault being browsed. Given by the record page as a Svelte context, so that a
 * readout table deep inside a molecule's page can queue a correction without its props saying so.
 */
import { getContext, setContext } from 'svelte'
import type { OutboxItemView, Result } from '../bridge.ts'
import { formatBytes } from '../../../../src-common/format/numbers.ts'
import { attachTargetOf } from '../../../../src-common/outbox/attach-targets.ts'
import type { RecordRef } from '../../../../src-common/outbox/record-ref.ts'
import type { HandOverProgress } from '../outbox/file-handover.ts'
import type { BrowseKind } from '../records/browse-kinds.ts'
import type { Session } from './session.svelte.ts'

export type { RecordRef }

export interface RecordDesk {
  session: Session
  connectionId: string
  vaultId: number
}

const key = Symbol('record-desk')

export function setRecordDesk(desk: RecordDesk): void {
  setContext(key, desk)
}

/** The desk of the record page around, or null (a component shown outside a record page). */
export function recordDesk(): RecordDesk | null {
  return getContext<RecordDesk | undefined>(key) ?? null
}

/** Whether files can be dropped on records of this kind (see `attachTargets`). */
export function canTakeFiles(kind: BrowseKind): boolean {
  return attachTargetOf(kind) !== null
}

/** How a queued change is announced: sent now, or waiting for the vault. */
export function queuedDetail(desk: RecordDesk): string {
  const online = desk.session.connections.statuses[desk.connectionId]?.online ?? false
  return online
    ? 'It is being sent now; the Outbox shows how it goes.'
    : 'The vault is not answering: it waits safely in the Outbox and goes out when the vault answers.'
}

/** Reports a queued change (or why it could not be queued) as a notice; true when queued. */
export function announce<T>(desk: RecordDesk, result: Result<T>, what: string): boolean {
  if (result.ok) desk.session.toasts.success(`Queued: ${what}`, queuedDetail(desk))
  else desk.session.toasts.error(`Could not queue ${what}`, result.error.message)
  return result.ok
}

/**
 * Attaches files to a record: to a molecule, run or protocol as uploads, to a notebook entry as
 * an addition to its body (which attaches them too), to a readout row's run. One item per file,
 * so that each upload goes, fails or is retried on its own.
 */
export async function attachFiles(
  desk: RecordDesk,
  kind: BrowseKind,
  ref: RecordRef,
  files: readonly File[],
  onProgress?: (progress: HandOverProgress) => void,
): Promise<boolean> {
  const target = attachTargetOf(kind)
  if (!target) return false
  const { connectionId, vaultId, session } = desk
  const names = files.length === 1 ? files[0]!.name : `${files.length} files`
  const size = files.reduce((sum, file) => sum + file.size, 0)
  let result: Result<OutboxItemView[]>
  if (target === 'eln_entry') {
    result = await session.outbox.queueFiles(
      files,
      (references) => ({
        connectionId,
        vaultId,
        operation: 'eln.append',
        entry: ref,
        body: references.map((path) => ({ type: 'file' as const, path })),
      }),
      onProgress,
    )
  } else {
    result = { ok: true, value: [] }
    for (const file of files) {
      const queued = await session.outbox.queueFiles(
        [file],
        ([path]) => ({
          connectionId,
          vaultId,
          operation: 'file.attach',
          file: path!,
          target: { kind: target, ref },
        }),
        onProgress,
      )
      if (!queued.ok) {
        result = queued
        break
      }
      result.value.push(...queued.value)
    }
  }
  return announce(desk, result, `${names} (${formatBytes(size)})`)
}
