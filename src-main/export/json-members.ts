/**
 * Members of a JSON object's top level read from its text, without parsing the rest: an SD file
 * needs a molecule's molfile (2-4 KB of its record's text), and parsing every record whole to
 * find it made most of the export's time and garbage (export.bench.ts). The text is walked token
 * by token, each string skipped with one search for its closing quote, so that the cost grows
 * with the number of members and values, not with the length of the strings; only the members
 * asked for are parsed, by JSON.parse, so that their values are exactly what parsing the whole
 * record would give.
 *
 * Text that is not a JSON object, or that the walk cannot read, answers null: the caller then
 * parses the record whole, which reports what is wrong with it as it always did.
 */

const quote = 0x22
const backslash = 0x5c
const openBrace = 0x7b
const closeBrace = 0x7d
const openBracket = 0x5b
const closeBracket = 0x5d
const comma = 0x2c
const colon = 0x3a

/** The values of the named top-level members that the object has; null when unreadable. */
export function topLevelMembers(
  text: string,
  names: readonly string[],
): Map<string, unknown> | null {
  const found = new Map<string, unknown>()
  let at = skipSpace(text, 0)
  if (text.charCodeAt(at) !== openBrace) return null
  at = skipSpace(text, at + 1)
  if (text.charCodeAt(at) === closeBrace) return found
  for (;;) {
    if (text.charCodeAt(at) !== quote) return null
    const keyStart = at
    const keyEnd = stringEnd(text, keyStart)
    if (keyEnd < 0) return null
    at = skipSpace(text, keyEnd)
    if (text.charCodeAt(at) !== colon) return null
    const valueStart = skipSpace(text, at + 1)
    const valueEnd = valueEndAt(text, valueStart)
    if (valueEnd < 0) return null
    const key = nameOf(text, keyStart, keyEnd, names)
    if (key !== null) {
      try {
        // A later member of the same name wins, as it does for JSON.parse.
        found.set(key, JSON.parse(text.slice(valueStart, valueEnd)))
      } catch {
        return null
      }
    }
    at = skipSpace(text, valueEnd)
    const next = text.charCodeAt(at)
    if (next === closeBrace) return skipSpace(text, at + 1) === text.length ? found : null
    if (next !== comma) return null
    at = skipSpace(text, at + 1)
  }
}

/**
 * The named top-level members of a record's text as the cache holds it (JSON.stringify's, valid
 * JSON), each found from the text's end: a record's structure is among its last members, after
 * its batches and fields, which the walk of `topLevelMembers` steps through token by token (three
 * times the time: export.bench.ts). A member's last `"name":` is the member when what follows its
 * value closes the record's object and nothing else; the text before it is taken as valid. Null
 * when that is not so for a name (the same name nested last, a name written with an escape, or
 * text of another shape): `topLevelMembers` then reads it.
 */
export function membersFromEnd(
  text: string,
  names: readonly string[],
): Map<string, unknown> | null {
  if (text.charCodeAt(0) !== openBrace || text.charCodeAt(text.length - 1) !== closeBrace) {
    return null
  }
  const found = new Map<string, unknown>()
  for (const name of names) {
    const key = text.lastIndexOf(`"${name}":`)
    if (key < 0) {
      // A name written with an escape (`\u0073miles`) is found by no search for it.
      if (text.includes('\\u')) return null
      continue
    }
    if (escaped(text, key)) return null
    const valueStart = skipSpace(text, key + name.length + 3)
    const valueEnd = valueEndAt(text, valueStart)
    if (valueEnd < 0 || !closesObject(text, valueEnd)) return null
    try {
      found.set(name, JSON.parse(text.slice(valueStart, valueEnd)))
    } catch {
      return null
    }
  }
  return found
}

/** Whether the text from `at` is the rest of an object's members, its `}` ending the text. */
function closesObject(text: string, at: number): boolean {
  for (let index = skipSpace(text, at); ;) {
    const code = text.charCodeAt(index)
    if (code === closeBrace) return skipSpace(text, index + 1) === text.length
    if (code !== comma) return false
    index = skipSpace(text, index + 1)
    if (text.charCodeAt(index) !== quote) return false
    index = skipSpace(text, stringEnd(text, index))
    if (text.charCodeAt(index) !== colon) return false
    index = valueEndAt(text, skipSpace(text, index + 1))
    if (index < 0) return false
    index = skipSpace(text, index)
  }
}

/**
 * Which of `names` the key whose string runs from `start` to `end` (quotes included) is, or null:
 * compared in place, since most keys are not asked for; a key with an escape is parsed.
 */
function nameOf(text: string, start: number, end: number, names: readonly string[]): string | null {
  for (const name of names) {
    if (end - start - 2 === name.length && text.startsWith(name, start + 1)) return name
  }
  const escape = text.indexOf('\\', start)
  if (escape < 0 || escape >= end) return null
  try {
    const key = JSON.parse(text.slice(start, end)) as string
    return names.includes(key) ? key : null
  } catch {
    return null
  }
}

/** Whether the character at `at` is escaped (an odd number of backslashes before it). */
function escaped(text: string, at: number): boolean {
  let count = 0
  for (let before = at - 1; before >= 0 && text.charCodeAt(before) === backslash; before--) count++
  return count % 2 === 1
}

/** Past the closing quote of the string that opens at `at`; -1 when it never closes. */
function stringEnd(text: string, at: number): number {
  let from = at + 1
  for (;;) {
    const close = text.indexOf('"', from)
    if (close < 0) return -1
    if (!escaped(text, close)) return close + 1
    from = close + 1
  }
}

/** Past the value that starts at `at` (a string, object, array, number or literal); -1 if none. */
function valueEndAt(text: string, at: number): number {
  const first = text.charCodeAt(at)
  if (first === quote) return stringEnd(text, at)
  if (first !== openBrace && first !== openBracket) {
    // A number or a literal: up to the next separator.
    let end = at
    while (end < text.length) {
      const code = text.charCodeAt(end)
      if (code === comma || code === closeBrace || code === closeBracket || isSpace(code)) break
      end++
    }
    return end > at ? end : -1
  }
  // The closers expected, innermost last: a bracket closed by a brace is not JSON.
  const closers: number[] = []
  for (let index = at; index < text.length;) {
    const code = text.charCodeAt(index)
    if (code === quote) {
      index = stringEnd(text, index)
      if (index < 0) return -1
      continue
    }
    if (code === openBrace) closers.push(closeBrace)
    else if (code === openBracket) closers.push(closeBracket)
    else if (code === closeBrace || code === closeBracket) {
      if (closers.pop() !== code) return -1
      if (closers.length === 0) return index + 1
    }
    index++
  }
  return -1
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}

function skipSpace(text: string, at: number): number {
  let index = at
  while (index < text.length && isSpace(text.charCodeAt(index))) index++
  return index
}
