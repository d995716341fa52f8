import type { SearchDocument } from './record-kinds.ts'

/** rowid of a search document: the record's row_id and its kind code (below 64). */
export const searchRowid = (rowId: number, kindCode: number): number => rowId * 64 + kindCode
export const rowIdOfSearchRowid = (rowid: number): number => Math.floor(rowid / 64)
export const kindCodeOfSearchRowid = (rowid: number): number => rowid % 64

/** The scope column's token: it starts with '_', which no word of a query does. */
export const vaultScopeToken = (vaultId: number): string => `_v${vaultId}`

/** The search_index columns of a document, in table order. */
export type SearchColumns = [
  name: string,
  identifiers: string,
  synonyms: string,
  content: string,
  scope: string,
]

export function searchColumns(document: SearchDocument, vaultId: number): SearchColumns {
  return [
    indexedText(document.name === undefined ? [] : [document.name]),
    indexedText(document.identifiers),
    indexedText(document.synonyms),
    indexedText(document.content),
    vaultScopeToken(vaultId),
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

/** A piece of a word after a joiner, and a test for three letters in it. */
const afterJoiner = /[-_]+([^\s_-]+)/g
const threeLetters = /\p{L}\P{L}*\p{L}\P{L}*\p{L}/u

function wordyParts(value: string): string {
  let parts = ''
  for (const [, piece] of value.matchAll(afterJoiner)) {
    if (threeLetters.test(piece!)) parts += ` ${piece}`
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
