import type Database from 'better-sqlite3'
import { recordKinds } from './record-kinds.ts'
import { searchTokens, vaultScopeToken } from './search-text.ts'

/** How many terms a prefix expands to at first before it counts as broad. */
export const firstExpansion = 64
/** Completions remembered at most; a person types a few dozen prefixes between two syncs. */
const rememberedCompletions = 500
const textColumns = '{name identifiers synonyms content}'

export interface SearchScope {
  vaultId?: number
  /**
   * Every match even for a broad prefix (a filtered list must count them all), at the price of
   * FTS5 merging the posting lists of all its terms before the first result.
   */
  complete?: boolean
}

export interface SearchPlan {
  /** The FTS5 MATCH expression, or null when nothing can match. */
  match: string | null
  /**
   * How many (term, record) postings the expanded terms have: what ranking must read before its
   * first answer (bm25 counts the records of every term). Unknown for a complete prefix (-1).
   */
  postings: number
  /**
   * True when a prefix started more terms than are expanded: the results are real matches, but
   * not all of them (the UI should invite the person to type more).
   */
  broad: boolean
}

/**
 * Turns what a person typed into an FTS5 query in which every word is a prefix. FTS5 answers a
 * prefix query by reading and merging the posting lists of every term the prefix starts before it
 * returns the first row: too slow for typing when 250k records share the beginning of an
 * identifier (bench/README.md). So each prefix is replaced by its terms, read in order from the
 * index's vocabulary: at most 64, whose posting lists are then read lazily, as far as the LIMIT
 * needs. Completions are remembered while the person types on (a longer prefix filters the
 * shorter one's list), until the index changes.
 */
export class SearchQueryPlanner {
  readonly #terms: Database.Statement<[string, string, number], Term>
  readonly #completions = new Map<string, Completions>()
  readonly #vaultIds: Database.Statement<[], { vault_id: number }>
  #vaults: Set<number> | undefined

  constructor(db: Database.Database) {
    db.exec(
      'CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_vocabulary USING fts5vocab(main, search_index, row)',
    )
    this.#terms = db.prepare<[string, string, number], Term>(
      'SELECT term, doc AS records FROM temp.search_vocabulary WHERE term >= ? AND term < ? LIMIT ?',
    )
    this.#vaultIds = db.prepare(distinctVaultsOfSearchedKinds())
  }

  /** Forgets remembered completions and vaults; called after every change to the index. */
  invalidate(): void {
    this.#completions.clear()
    this.#vaults = undefined
  }

  /**
   * Filtering by vault inside the index costs every query a walk over the posting list of the
   * vault's token (all its records; ranking even reads it twice), so it is left out when the
   * cache holds that vault alone, the usual case.
   */
  needsVaultFilter(vaultId: number): boolean {
    this.#vaults ??= new Set(this.#vaultIds.all().map((row) => row.vault_id))
    return !(this.#vaults.size === 1 && this.#vaults.has(vaultId))
  }

  /**
   * The same words a plan matches, each as an FTS5 prefix query, for an index of a few records
   * (those waiting in the outbox), where expanding prefixes from a vocabulary is needless.
   */
  prefixMatch(text: string): string | null {
    const words = queryWords(text)
    return words.length === 0 ? null : words.map((word) => `${quote(word)}*`).join(' ')
  }

  /** `expansion`: how many terms each prefix may stand for before the plan is broad. */
  plan(text: string, scope: SearchScope = {}, expansion = firstExpansion): SearchPlan {
    const tokens = queryWords(text)
    if (tokens.length === 0) return { match: null, postings: 0, broad: false }
    let broad = false
    let postings = 0
    const parts: string[] = []
    for (const token of tokens) {
      const { terms, complete } = this.#complete(token, expansion)
      if (terms.length === 0) return { match: null, postings: 0, broad: false }
      if (!complete && scope.complete) {
        parts.push(`${quote(token)}*`)
        postings = -1
        continue
      }
      broad ||= !complete
      if (postings >= 0) for (const { records } of terms) postings += records
      parts.push(`(${terms.map(({ term }) => quote(term)).join(' OR ')})`)
    }
    const vaultFilter =
      scope.vaultId !== undefined && this.needsVaultFilter(scope.vaultId)
        ? ` AND {scope} : ${quote(vaultScopeToken(scope.vaultId))}`
        : ''
    return { match: `${textColumns} : (${parts.join(' AND ')})${vaultFilter}`, postings, broad }
  }

  /** The words of a query, as the index tokenizes them (each one is a prefix). */
  words(text: string): string[] {
    return queryWords(text)
  }

  #complete(token: string, expansion: number): Completions {
    const known = this.#completions.get(token)
    if (known && (known.complete || known.terms.length >= expansion)) {
      return known.complete ? known : { terms: known.terms.slice(0, expansion), complete: false }
    }
    const shorter = this.#completionsOfShorterPrefix(token)
    let completions: Completions
    if (shorter) {
      completions = { terms: shorter.filter(({ term }) => term.startsWith(token)), complete: true }
    } else {
      const terms = this.#terms.all(token, `${token}\u{10FFFF}`, expansion + 1)
      const complete = terms.length <= expansion
      completions = { terms: complete ? terms : terms.slice(0, expansion), complete }
    }
    if (this.#completions.size >= rememberedCompletions) this.#completions.clear()
    this.#completions.set(token, completions)
    return completions
  }

  /** The complete completions of a shorter prefix hold every completion of this one. */
  #completionsOfShorterPrefix(token: string): Term[] | undefined {
    for (let end = token.length - 1; end > 0; end--) {
      const known = this.#completions.get(token.slice(0, end))
      if (known?.complete) return known.terms
    }
    return undefined
  }
}

interface Term {
  term: string
  /** How many records hold it. */
  records: number
}

interface Completions {
  terms: Term[]
  /** False when the prefix starts more terms than were read. */
  complete: boolean
}

/**
 * The vaults that have search documents: each searched kind's vault ids, read by skipping along
 * its (vault_id, ...) index, and the vaults themselves (indexed as belonging to themselves).
 */
function distinctVaultsOfSearchedKinds(): string {
  const tables = [...recordKinds.values()]
    .filter((kind) => kind.searchOf && kind.name !== 'vaults')
    .map((kind) => kind.table)
  return [
    'SELECT id AS vault_id FROM vaults',
    ...tables.map(
      (table) => `SELECT vault_id FROM (
        WITH RECURSIVE seen(vault_id) AS (
          SELECT min(vault_id) FROM ${table}
          UNION ALL
          SELECT (SELECT min(vault_id) FROM ${table} WHERE vault_id > seen.vault_id) FROM seen
            WHERE seen.vault_id IS NOT NULL
        ) SELECT vault_id FROM seen WHERE vault_id IS NOT NULL)`,
    ),
  ].join(' UNION ')
}

function queryWords(text: string): string[] {
  return [
    ...new Set(
      searchTokens(text)
        .map(trimJoiners)
        .filter((token) => token !== ''),
    ),
  ]
}

/**
 * Joiners at the ends are not part of what the person means ("VD-" on the way to "VD-12"); this
 * also keeps a word from ever starting with '_', the mark of scope tokens.
 */
function trimJoiners(token: string): string {
  return token.replace(/^[-_]+|[-_]+$/g, '')
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`
}
