/**
 * How a record is named wherever it appears (a page title, a link, a list's preview): its name
 * where it has one, otherwise what a scientist calls it ("Run of 24 Jul 2026", "Well A03"), as
 * its kind's declaration says.
 */
import {
  kindDeclaration,
  recordTitle as declaredTitle,
} from '../../../../src-common/records/record-kinds.ts'
import { toLinkName, type JsonObject } from '../../../../src-common/values.ts'
import type { BrowseKind } from './browse-kinds.ts'

export function recordTitle(kind: BrowseKind, record: JsonObject): string {
  return declaredTitle(kindDeclaration(kind), record)
}

/** The name of a linked record given as `{id, name}`, or the kind and id of a bare id. */
export function linkTitle(kind: BrowseKind, link: unknown, id: number): string {
  return toLinkName(link) ?? `${kindDeclaration(kind).singular} ${id}`
}
