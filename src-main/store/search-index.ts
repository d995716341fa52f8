import type Database from 'better-sqlite3'
import { AppError } from '../shared/app-error.ts'
import { recordKind, recordKindsByCode, type RecordKindName } from './record-kinds.ts'
import { firstExpansion, type SearchQueryPlanner } from './search-query.ts'
import { kindCodeOfSearchRowid, rowIdOfSearchRowid, searchRowid } from './search-text.ts'

export interface SearchHit {
  kind: RecordKindName
  vaultId: number
  id: number
  name: string | null
  /** bm25 of a ranked search, lower is better; absent on hits added in term order after them. */
  score?: number
}

export interface SearchResult {
  hits: SearchHit[]
  /** A prefix matched more terms than were expanded: type more to see every match. */
  broad: boolean
}

export interface SearchOptions {
  vaultId?: number
  kinds?: readonly string[]
  /** At most 200; 50 by default. */
  limit?: number
  /**
   * Best matches first (bm25, names weigh most) instead of index order, when the query's terms
   * are few enough to rank within a keystroke (see rankingBudget).
   */
  ranked?: boolean
}

/**
 * How many matches a ranked search scores. Scoring every match of a broad prefix takes longer than
 * a keystroke allows at 250k records (bench/README.md); the first 1000 matches in index order are
 * scored instead, which ranks exactly whenever a query has fewer matches than that, and is what a
 * query typed that far is worth.
 */
const rankedCandidates = 1000
/**
 * bm25 first counts the records of every term of the query: past this many postings that alone
 * takes longer than a keystroke allows (the first terms of "br" include a target that 30k
 * records name), and the answer comes in index order instead, as for a prefix.
 */
const rankingBudget = 50_000
/** Weights of name, identifiers, synonyms, content, scope. */
const weights = '10.0, 8.0, 4.0, 1.0, 0.0'
/**
 * A query of one word is answered from the index's list of (term, record) instances, read in
 * term order from the word on and stopped at the limit: every prefix, however many terms it
 * starts, costs well under a millisecond, and the answer is complete in the sense that counts
 * (the first records in term order). With more words, or ranked, FTS5 answers from the expanded
 * terms (search-query.ts); a ranked answer cut short by a broad prefix is filled up in term order.
 * Where the instance list cannot be used (several vaults cached), a broad prefix stands for 8 and
 * then 64 times more terms before the answer is given as broad.
 */
const expansions = [firstExpansion * 8, firstExpansion * 64]

type Row = { rowid: number; score: number | null }
type QueryParams = { match: string; kinds: string; limit: number }
type InstanceParams = { from: string; to: string; kinds: string; limit: number }

/** Search as you type over every kind that has search documents. */
export class SearchIndex {
  readonly #planner: SearchQueryPlanner
  readonly #prefix: Database.Statement<[QueryParams], Row>
  readonly #ranked: Database.Statement<[QueryParams], Row>
  readonly #instances: Database.Statement<[InstanceParams], Row>
  readonly #db: Database.Database
  readonly #hydrate = new Map<string, Database.Statement<[string], HitRow>>()

  constructor(db: Database.Database, planner: SearchQueryPlanner) {
    this.#db = db
    this.#planner = planner
    // Kinds are filtered on the rowid's low bits: an empty list means every kind.
    const ofKinds = `(@kinds = '[]' OR rowid % 64 IN (SELECT value FROM json_each(@kinds)))`
    this.#prefix = db.prepare(
      `SELECT rowid, NULL AS score FROM search_index
         WHERE search_index MATCH @match AND ${ofKinds} LIMIT @limit`,
    )
    this.#ranked = db.prepare(
      `SELECT rowid, score FROM (
         SELECT rowid, bm25(search_index, ${weights}) AS score FROM search_index
           WHERE search_index MATCH @match AND ${ofKinds} LIMIT ${rankedCandidates}
       ) ORDER BY score LIMIT @limit`,
    )
    db.exec(
      'CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_instances USING fts5vocab(main, search_index, instance)',
    )
    this.#instances = db.prepare(
      `SELECT DISTINCT doc AS rowid, NULL AS score FROM temp.search_instances
         WHERE term >= @from AND term < @to AND col <> 'scope'
           AND (@kinds = '[]' OR doc % 64 IN (SELECT value FROM json_each(@kinds)))
         LIMIT @limit`,
    )
  }

  search(text: string, options: SearchOptions = {}): SearchResult {
    const limit = Math.min(Math.max(Math.trunc(options.limit ?? 50), 1), 200)
    const kinds = JSON.stringify(options.kinds?.map((name) => recordKind(name).code) ?? [])
    const scope = options.vaultId === undefined ? {} : { vaultId: options.vaultId }
    const words = this.#planner.words(text)
    if (words.length === 0) return { hits: [], broad: false }
    const byInstances =
      options.vaultId === undefined || !this.#planner.needsVaultFilter(options.vaultId)
    // A single character says too little to rank by, and its terms are the most common ones.
    const unrankable = words.length === 1 && [...words[0]!].length === 1
    if (words.length === 1 && byInstances && (!options.ranked || unrankable)) {
      return { hits: this.#hits(this.#fromInstances(words[0]!, kinds, limit)), broad: false }
    }
    const first = this.#planner.plan(text, scope, firstExpansion)
    if (first.match === null) return { hits: [], broad: false }
    const rank = options.ranked && first.postings >= 0 && first.postings <= rankingBudget
    let rows = this.#run(rank ? this.#ranked : this.#prefix, first.match, kinds, limit, text)
    let broad = first.broad
    if (broad && rows.length < limit && words.length === 1) {
      if (byInstances) {
        rows = withoutRepeats(rows, this.#fromInstances(words[0]!, kinds, limit), limit)
        broad = false
      } else {
        for (const expansion of expansions) {
          const plan = this.#planner.plan(text, scope, expansion)
          const more = this.#run(this.#prefix, plan.match!, kinds, limit, text)
          rows = withoutRepeats(rows, more, limit)
          broad = plan.broad
          if (!broad || rows.length >= limit) break
        }
      }
    }
    return { hits: this.#hits(rows), broad }
  }

  #fromInstances(word: string, kinds: string, limit: number): Row[] {
    return this.#instances.all({ from: word, to: `${word}\u{10FFFF}`, kinds, limit })
  }

  #run(
    statement: Database.Statement<[QueryParams], Row>,
    match: string,
    kinds: string,
    limit: number,
    text: string,
  ): Row[] {
    try {
      return statement.all({ match, kinds, limit })
    } catch (error) {
      throw new AppError('storage', `Search for "${text}" failed: ${(error as Error).message}`, {
        cause: error,
      })
    }
  }

  #hits(rows: readonly Row[]): SearchHit[] {
    const byKind = new Map<number, number[]>()
    for (const { rowid } of rows) {
      const code = kindCodeOfSearchRowid(rowid)
      const list = byKind.get(code) ?? []
      list.push(rowIdOfSearchRowid(rowid))
      byKind.set(code, list)
    }
    const found = new Map<number, HitRow & { kind: RecordKindName }>()
    for (const [code, rowIds] of byKind) {
      const kind = recordKindsByCode.get(code)
      if (!kind) continue
      for (const row of this.#hydrateStatement(kind.table).all(JSON.stringify(rowIds))) {
        found.set(searchRowid(row.row_id, code), { ...row, kind: kind.name })
      }
    }
    const hits: SearchHit[] = []
    for (const { rowid, score } of rows) {
      const row = found.get(rowid)
      if (!row) continue
      hits.push({
        kind: row.kind,
        vaultId: row.vault_id,
        id: row.id,
        name: row.name,
        ...(score === null ? {} : { score }),
      })
    }
    return hits
  }

  #hydrateStatement(table: string): Database.Statement<[string], HitRow> {
    let statement = this.#hydrate.get(table)
    if (!statement) {
      statement = this.#db.prepare(
        `SELECT row_id, vault_id, id, name FROM ${table}
           WHERE row_id IN (SELECT value FROM json_each(?))`,
      )
      this.#hydrate.set(table, statement)
    }
    return statement
  }
}

interface HitRow {
  row_id: number
  vault_id: number
  id: number
  name: string | null
}

/** The rows of `first`, then those of `more` not among them, up to `limit`. */
function withoutRepeats(first: readonly Row[], more: readonly Row[], limit: number): Row[] {
  const seen = new Set(first.map((row) => row.rowid))
  return [...first, ...more.filter((row) => !seen.has(row.rowid))].slice(0, limit)
}
