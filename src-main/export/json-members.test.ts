/**
 * Top-level members read from a record's text give exactly what JSON.parse gives for them, over
 * generated records full of the traps a text search would fall into (the same name nested, inside
 * strings, escaped, repeated), and text that is not an object answers null, never a wrong value.
 * Read from the text's end (`membersFromEnd`), they are JSON.parse's too, or null (never wrong).
 */
import { describe, expect, it } from 'vitest'
import { membersFromEnd, topLevelMembers } from './json-members.ts'

const names = ['molfile', 'smiles', 'cxsmiles', 'structure'] as const

/** A small deterministic generator, so that a failing seed can be run again. */
function generator(seed: number): <T>(items: readonly T[]) => T {
  let state = seed * 2654435761 || 1
  return <T>(items: readonly T[]): T => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return items[(state >>> 0) % items.length]!
  }
}

const molfile = '\n     RDKit          2D\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n'
const texts = [
  molfile,
  'CCO',
  '',
  'say "molfile": "no"',
  '\\"molfile\\":',
  '"smiles":"C"',
  'Ünïcödé 化合物 \u2028',
  '\\',
  '}{][,:',
]

function value(pick: ReturnType<typeof generator>, depth: number): unknown {
  const shape = pick(
    depth > 2 ? ['text', 'number', 'null'] : ['text', 'number', 'null', 'object', 'array'],
  )
  switch (shape) {
    case 'text':
      return pick(texts)
    case 'number':
      return pick([0, -1.5, 1e-7, 12345678901234, 2.5e300])
    case 'null':
      return pick([null, true, false])
    case 'object':
      return record(pick, depth + 1)
    default:
      return Array.from({ length: pick([0, 1, 3]) }, () => value(pick, depth + 1))
  }
}

function record(pick: ReturnType<typeof generator>, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (let index = pick([0, 2, 5]); index > 0; index--) {
    result[pick([...names, 'batches', 'id', 'na"me', 'mol\\file', 'x'])] = value(pick, depth)
  }
  return result
}

describe('topLevelMembers', () => {
  it('gives what JSON.parse gives for the members asked, however the record is written', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const pick = generator(seed)
      const object = record(pick, 0)
      const spacing = pick([undefined, 1, '\t', '\r\n '])
      const text = JSON.stringify(object, null, spacing)
      const parsed = JSON.parse(text) as Record<string, unknown>
      const expected = new Map(
        names.flatMap((name) => (name in parsed ? [[name, parsed[name]]] : [])),
      )
      expect(topLevelMembers(text, names), `seed ${seed}: ${text}`).toEqual(expected)
    }
  })

  it('takes the last of a repeated member and reads escaped names, as JSON.parse does', () => {
    const text = '{"smiles":"C","b":{"smiles":"N"},"smi\\u006ces":"O","molfile":1,"molfile":"CC"}'
    expect(topLevelMembers(text, names)).toEqual(
      new Map<string, unknown>([
        ['smiles', 'O'],
        ['molfile', 'CC'],
      ]),
    )
  })

  it('answers null for text that is not one JSON object', () => {
    for (const text of [
      '',
      '[]',
      '"molfile"',
      '{"molfile":"C"',
      '{"molfile":"C"}x',
      '{"molfile" "C"}',
      '{"molfile":"C",}',
      '{"molfile":C}',
      '{"a":[1,2},"molfile":"C"}',
      '{"a":{"b":1]},"molfile":"C"}',
      '{"molfile":"\\q"}',
      '{molfile:"C"}',
    ]) {
      expect(topLevelMembers(text, names), text).toBeNull()
    }
    expect(topLevelMembers(' { } ', names)).toEqual(new Map())
  })
})

describe('membersFromEnd', () => {
  it('gives what JSON.parse gives for the members asked, or null, never another value', () => {
    let answered = 0
    for (let seed = 1; seed <= 400; seed++) {
      const pick = generator(seed)
      const object = record(pick, 0)
      const spacing = pick([undefined, undefined, 1, '\t'])
      const text = JSON.stringify(object, null, spacing)
      const parsed = JSON.parse(text) as Record<string, unknown>
      const expected = new Map(
        names.flatMap((name) => (name in parsed ? [[name, parsed[name]]] : [])),
      )
      const found = membersFromEnd(text, names)
      if (found === null) continue
      answered++
      expect(found, `seed ${seed}: ${text}`).toEqual(expected)
    }
    // Most records are read from their end: a name nested after the top-level one is the exception.
    expect(answered).toBeGreaterThan(200)
  })

  it('reads a record whose structure comes after its batches, as a vault writes it', () => {
    const molecule = {
      id: 7,
      smiles: 'CCO',
      batches: [{ id: 1, name: 'smiles', structure_notes: 'molfile' }],
      molecule_fields: { Note: 'a "molfile": inside a value' },
      molfile,
    }
    expect(membersFromEnd(JSON.stringify(molecule), names)).toEqual(
      new Map([
        ['molfile', molfile],
        ['smiles', 'CCO'],
      ]),
    )
  })

  it('answers null where the last occurrence of a name is not a top-level member', () => {
    for (const text of [
      '{"molfile":"C","b":{"molfile":"N"}}',
      '{"molfile":"C","b":[{"molfile":"N"}]}',
      '{"smi\\u006ces":"O"}',
      '{"molfile":"C"}x',
      '[{"molfile":"C"}]',
      '{"molfile":"C"',
      '{"molfile":C}',
      '{"molfile":"C",}',
    ]) {
      expect(membersFromEnd(text, names), text).toBeNull()
    }
    // A name inside a string value is no member: its quotes are escaped.
    expect(membersFromEnd('{"a":"\\"molfile\\":\\"N\\"","smiles":"C"}', names)).toEqual(
      new Map([['smiles', 'C']]),
    )
  })
})
