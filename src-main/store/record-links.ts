import type { LinkDeclaration, LinkSource } from '../../src-common/records/kind-declaration.ts'
import type { RecordRow } from '../../src-common/records/record-row.ts'
import { toId, type SqlValue } from '../../src-common/values.ts'
import { recordKind, type RecordKindName } from './record-kinds.ts'
import type { RecordQueries } from './record-queries.ts'

type Row = RecordRow<RecordKindName>

/** A record and the records it links to, by kind, for a detail page. */
export interface LinkedRecord {
  kind: RecordKindName
  record: Row
  links: Partial<Record<RecordKindName, Row[]>>
}

/** Readout rows and other many-sided links are capped per detail page. */
const manyLimit = 2000
/** Location trees are walked at most this deep (a cycle in the data must not hang a page). */
const ancestorLimit = 50

/**
 * Follows the links a kind declares (`links` in its declaration), in order: each link reads its
 * values from the record's own columns, its JSON, or the records an earlier link found, and finds
 * the records of its kind whose column holds one of them.
 */
export class RecordLinks {
  readonly #queries: RecordQueries

  constructor(queries: RecordQueries) {
    this.#queries = queries
  }

  get(kindName: string, vaultId: number, id: number): LinkedRecord | null {
    const kind = recordKind(kindName)
    const record = this.#queries.row(kind.name, vaultId, id)
    if (!record) return null
    const links: LinkedRecord['links'] = {}
    for (const link of kind.declaration.links ?? []) {
      const linkKind = link.kind as RecordKindName
      const found = this.#follow(link, vaultId, record, links)
      const earlier = links[linkKind]
      links[linkKind] = earlier ? unionById(earlier, found) : found
    }
    return { kind: kind.name, record, links }
  }

  #follow(
    link: LinkDeclaration,
    vaultId: number,
    record: Row,
    links: LinkedRecord['links'],
  ): Row[] {
    const values = distinctValues(
      [link.from].flat().flatMap((source) => valuesOf(source, record, links)),
    )
    const kind = recordKind(link.kind)
    if (link.ancestors !== undefined)
      return this.#ancestors(kind.name, vaultId, values[0] ?? null, link.ancestors)
    const rows = this.#queries.where(
      kind,
      vaultId,
      link.column,
      values,
      link.many ? manyLimit : undefined,
    )
    const where = Object.entries(link.where ?? {})
    return where.length === 0
      ? rows
      : rows.filter((row) => where.every(([column, value]) => row.columns[column] === value))
  }

  /** The record and its parents, innermost first. */
  #ancestors(kind: RecordKindName, vaultId: number, first: SqlValue, parentColumn: string): Row[] {
    const path: Row[] = []
    const seen = new Set<number>()
    let next = toId(first)
    while (next !== null && !seen.has(next) && path.length < ancestorLimit) {
      seen.add(next)
      const row = this.#queries.row(kind, vaultId, next)
      if (!row) break
      path.push(row)
      next = toId(row.columns[parentColumn])
    }
    return path
  }
}

function valuesOf(source: LinkSource, record: Row, links: LinkedRecord['links']): SqlValue[] {
  if ('own' in source)
    return [source.own === 'id' ? record.id : (record.columns[source.own] ?? null)]
  if ('json' in source) return [...source.json(record.json)]
  const rows = links[source.linked as RecordKindName] ?? []
  return rows.map((row) => (source.column === 'id' ? row.id : (row.columns[source.column] ?? null)))
}

function distinctValues(values: readonly SqlValue[]): SqlValue[] {
  return [...new Set(values.filter((value) => value !== null))]
}

function unionById(first: readonly Row[], second: readonly Row[]): Row[] {
  const ids = new Set(first.map((row) => row.id))
  return [...first, ...second.filter((row) => !ids.has(row.id))]
}
