import type { RecordRef } from '../../../src-common/outbox/record-ref.ts'

/**
 * Lanes. Items of one record go in order (their order key); a lane orders items that are not of
 * one record but must not be in flight together: those that a look-up after a crash would find
 * alike. Uploads of one file name to one record share a lane, as do new records found by what a
 * list shows of them (ELN entries of one title, plates of one name, samples of one batch, imports
 * of one file, collections of one name): if two were sent at once and the process died, both would
 * be in doubt, and one record like them found on the server afterwards could not tell which of
 * them arrived. In a lane, at most one is ever in doubt.
 *
 * A lane is `<connection>/<vault>/<operation's part>`. In the operation's part a record created
 * offline is `#<item>` until that item is sent, then its server id (`OutboxStore.markSent`
 * rewrites the lanes of the items that depend on it), so that items queued before and after
 * share their lane.
 */
export function laneKey(connectionId: string, vaultId: number, part: string): string {
  return `${encodeURIComponent(connectionId)}/${vaultId}/${part}`
}

/** How a lane names a record: its server id, or `#<item>` while the item creating it is unsent. */
export type LaneRef = (ref: RecordRef) => string

/** The lane of uploads of one file name to one record. */
export function uploadLane(kind: string, target: string, fileName: string): string {
  return `file/${kind}/${target}/${encodeURIComponent(fileName)}`
}

/** A record created offline, in a lane, until its item is sent. */
export function offlineLaneRef(item: number): string {
  return `#${item}`
}

/**
 * The lane of new records that a look-up tells apart only by `key` (a title, a name, a batch),
 * compared loosely (trimmed, any case): a lane wider than the look-up costs order, never a doubt.
 */
export function likenessLane(what: string, key: string | number): string {
  return `new/${what}/${encodeURIComponent(String(key).trim().toLowerCase())}`
}
