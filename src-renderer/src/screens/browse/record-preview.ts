/**
 * The few facts a list's preview panel shows about the selected record, so that a person can scan
 * a list without opening every record: its kind's declared preview.
 */
import type { Property } from '../../../../src-common/records/kind-declaration.ts'
import { kindDeclaration, type ListedKind } from '../../../../src-common/records/record-kinds.ts'
import type { CachedRecord } from '../../lib/bridge.ts'
import type { ListKind } from '../../lib/records/browse-kinds.ts'

export function previewOf(kind: ListKind, row: CachedRecord): Property[] {
  return (kindDeclaration(kind) as ListedKind).browse.preview?.(row) ?? []
}
