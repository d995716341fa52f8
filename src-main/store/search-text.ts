import type { SearchDocument } from './record-kinds.ts'

/**
 * The tokenizer of the search index (its migration keeps its own frozen copy; a test holds them
 * equal): '-' and '_' are token characters, so that identifiers stay one token.
 */
export const searchTokenizer = "unicode61 remove_diacritics 2 tokenchars '-_'"

/** rowid of a search document: the record's row_id and its kind code (below 64). */
export const searchRowid = (rowId: number, kindCode: number): number => rowId * 64 + kindCode
export const rowIdOfSearchRowid = (rowid: number): number => Math.floor(rowid / 64)
export const kindCodeOfSearchRowid = (rowid: number): number => rowid % 64

/** The scope column's token: it starts with '_', which no word of a query does. */
export const vaultScopeToken = (vaultId: number): string => `_v${vaultId}`

/**
 * The search_index columns of a document, in table order, but for the scope: the writer gives
 * that as part of its statement (one per vault), not as a value bound for every row.
 */
export type SearchColumns = [name: string, identifiers: string, synonyms: string, content: string]

export const searchColumnCount = 4

export function searchColumns(document: SearchDocument): SearchColumns {
  return [
    indexedText(document.name === undefined ? [] : [document.name]),
    indexedText(document.identifiers),
    indexedText(document.synonyms),
    indexedText(document.content),
  ]
}

/**
 * Values joined for the tokenizer. '-' and '_' are token characters, so that an identifier stays
 * one token and typing its beginning finds it. Wordy parts after a joiner are added as words of
 * their own, so that "2-acetoxybenzoic acid" is found by "acetoxy" and "Sigma-Aldrich" by
 * "aldrich"; the digit runs of "VD-0000123-001" are not (every token costs ingest time).
 */
function indexedText(values: readonly (string | null)[] | undefined): string {
  if (!values) return ''
  let text = ''
  for (const value of values) {
    if (!value) continue
    text += text === '' ? value : ` ${value}`
    if (value.includes('-') || value.includes('_')) text += wordyParts(value)
  }
  return text
}

const letter = /\p{L}/u
const space = /\s/

/** Whether a code point is a letter; ASCII is answered without the pattern. */
function isLetter(code: number): boolean {
  if (code < 128) return (code | 32) >= 97 && (code | 32) <= 122
  return letter.test(String.fromCodePoint(code))
}

function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13)
  return space.test(String.fromCodePoint(code))
}

/**
 * Each piece of a word after a joiner (up to the next joiner or space) that has three letters,
 * each after a space: what /[-_]+([^\s_-]+)/g finds, kept when it has three letters. A scan by
 * character code, because this runs for several values of every record sync stores.
 */
function wordyParts(value: string): string {
  let parts = ''
  let index = 0
  const length = value.length
  while (index < length) {
    const code = value.charCodeAt(index)
    if (code !== 45 /* - */ && code !== 95 /* _ */) {
      index++
      continue
    }
    while (index < length && (value.charCodeAt(index) === 45 || value.charCodeAt(index) === 95)) {
      index++
    }
    const start = index
    let letters = 0
    while (index < length) {
      const next = value.codePointAt(index)!
      if (next === 45 || next === 95 || isSpace(next)) break
      if (letters < 3 && isLetter(next)) letters++
      index += next > 0xffff ? 2 : 1
    }
    if (letters === 3) parts += ` ${value.slice(start, index)}`
  }
  return parts
}

/**
 * The tokens the index holds for a text, as its tokenizer (unicode61, remove_diacritics 2,
 * tokenchars '-_') makes them: letters, digits and private-use characters, lower case, without
 * diacritics.
 */
export function searchTokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{Co}_-]+/u)
    .filter((token) => token !== '')
}
