import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ApiError } from './errors.ts'
import { list, page, setAsideIn } from './envelope.ts'
import { molecule } from './resources/chemistry-records.ts'
import {
  arrayOf,
  boolean,
  idOr,
  integer,
  mapOf,
  number,
  object,
  optional,
  readAnswer,
  readExactly,
  replacedValues,
  string,
  timestamp,
} from './shape.ts'

const record = object({
  id: integer,
  name: optional(string),
  active: optional(boolean),
  weight: optional(number),
  created_at: optional(timestamp),
  tags: optional(arrayOf(string)),
  fields: optional(mapOf(integer)),
})

describe('tolerant readers', () => {
  it('coerces ids, numbers and booleans sent as strings and keeps unknown members', () => {
    const value = readAnswer('things.get', record, {
      id: '12',
      name: 7,
      active: 'true',
      weight: '46.07',
      fields: { count: '3' },
      vendor_extension: { anything: [1, 2] },
    })
    expect(value).toEqual({
      id: 12,
      name: '7',
      active: true,
      weight: 46.07,
      fields: { count: 3 },
      vendor_extension: { anything: [1, 2] },
    })
  })

  it.each([
    ['true', true],
    ['FALSE', false],
    ['1', true],
    ['0', false],
    [1, true],
    [0, false],
  ])('reads the boolean %j', (input, expected) => {
    expect(boolean(input)).toBe(expected)
  })

  it.each([
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00:00.123Z', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T12:00:00+02:00', '2024-05-01T10:00:00Z'],
    ['2024-05-01T12:00:00.123456+0200', '2024-05-01T10:00:00.123456Z'],
    ['2024-05-01 05:30:00-04:30', '2024-05-01T10:00:00Z'],
    ['2024-05-01T10:00', '2024-05-01T10:00:00Z'],
    ['2024-05-01T00:30:00+01:00', '2024-04-30T23:30:00Z'],
    ['2024-05-01', '2024-05-01'],
  ])('normalizes the timestamp %s to UTC', (input, expected) => {
    expect(timestamp(input)).toBe(expected)
  })

  it('leaves absent and null optional members alone', () => {
    expect(readAnswer('things.get', record, { id: 1, name: null })).toEqual({ id: 1, name: null })
  })

  it.each([
    [{ name: 'x' }, 'things.get: unexpected answer: id: expected an integer, got nothing.'],
    [{ id: 'abc' }, 'things.get: unexpected answer: id: expected an integer, got "abc".'],
    [
      { id: 1, tags: ['a', {}] },
      'things.get: unexpected answer: tags[1]: expected a string, got {}.',
    ],
    [
      { id: 1, created_at: 'yesterday' },
      'created_at: expected an ISO 8601 timestamp, got "yesterday"',
    ],
    [{ id: 1, fields: { n: 'x' } }, 'fields.n: expected an integer, got "x"'],
    [[1], 'the answer: expected an object, got [1]'],
  ])('names the member at fault in %j', (input, message) => {
    const error = (() => {
      try {
        readAnswer('things.get', record, input)
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).kind).toBe('bad_response')
    expect((error as ApiError).message).toContain(message)
  })

  it('reads a member that holds an id or the record it names', () => {
    const idOrRecord = idOr(object({ id: integer }))
    expect(idOrRecord('5')).toBe(5)
    expect(idOrRecord({ id: '5', name: 'x' })).toEqual({ id: 5, name: 'x' })
    expect(() => idOrRecord(true)).toThrow('expected an integer')
    expect(() => idOrRecord({ name: 'x' })).toThrow('expected an integer')
  })
})

describe('records in the client form and records to fix', () => {
  const canonical = () => ({
    id: 7,
    name: 'VD-7',
    synonyms: ['x'],
    projects: [{ id: 1, name: 'P' }],
    molecular_weight: 180.16,
    heavy_atom_count: 13,
    molecule_fields: { Series: 'A' },
    created_at: '2024-05-01T10:00:00.000Z',
    modified_at: '2024-05-01',
    batches: [
      {
        id: 70,
        batch_fields: { 'Purity (%)': 99 },
        stoichiometry: { core_count: 1, salt_count: 0 },
        created_at: '2024-05-01T10:00:00Z',
      },
      71,
    ],
    vendor_extension: { kept: true },
  })

  it('gives back a record already in the client form unchanged, the same object', () => {
    const record = canonical()
    expect(molecule(record)).toBe(record)
    expect(record).toEqual(canonical())
  })

  it('fixes variations anywhere in a record, however deep, and keeps unknown members', () => {
    const record = {
      ...canonical(),
      id: '7',
      synonyms: [12],
      projects: [{ id: '1', name: 'P' }],
      molecular_weight: '180.16',
      created_at: '2024-05-01T12:00:00+02:00',
      batches: [
        {
          id: '70',
          batch_fields: { 'Purity (%)': 99 },
          stoichiometry: { core_count: '1', salt_count: 0 },
          created_at: '2024-05-01 10:00:00',
        },
        '71',
      ],
    }
    const read = molecule(record)
    expect(read).toEqual({
      ...canonical(),
      synonyms: ['12'],
      created_at: '2024-05-01T10:00:00Z',
      batches: [{ ...(canonical().batches[0] as object), created_at: '2024-05-01T10:00:00Z' }, 71],
    })
    // Reading the fixed record again changes nothing.
    expect(molecule(structuredClone(read))).toEqual(read)
  })

  it('counts the values it replaces, so that a record read unchanged is known to be', () => {
    const before = replacedValues()
    molecule(canonical())
    expect(replacedValues()).toBe(before)
    // One value replaced at each depth: a member, an array item, a map value, a nested member.
    molecule({ ...canonical(), id: '7' })
    expect(replacedValues()).toBe(before + 1)
    molecule({ ...canonical(), synonyms: [12] })
    expect(replacedValues()).toBe(before + 2)
    readAnswer('things.get', record, { id: 1, fields: { count: '3' } })
    expect(replacedValues()).toBe(before + 3)
    molecule({ ...canonical(), batches: [{ id: 70, created_at: '2024-05-01 10:00:00' }] })
    expect(replacedValues()).toBe(before + 4)
  })

  it('tells a record read exactly as it came from one a reader changed', () => {
    const unchanged = canonical()
    expect(readExactly(molecule, unchanged)).toEqual({ read: unchanged, exact: true })
    const changed = readExactly(molecule, { ...canonical(), synonyms: [12] })
    expect(changed.exact).toBe(false)
    expect(changed.read).toMatchObject({ synonyms: ['12'] })
  })

  it('names a fault deep in a record that starts in the client form', () => {
    const record = canonical()
    ;(record.batches[0] as { stoichiometry: { salt_count: unknown } }).stoichiometry.salt_count =
      'two'
    expect(() => readAnswer('molecules.get', molecule, record)).toThrow(
      'batches[0].stoichiometry.salt_count: expected an integer, got "two"',
    )
  })

  it('reads the same where code generation is turned off', () => {
    // The object readers are compiled; without that, their member loops do it all.
    const script = `
      import { molecule } from ${JSON.stringify(new URL('./resources/chemistry-records.ts', import.meta.url).href)}
      const good = ${JSON.stringify(canonical())}
      const fixed = molecule({ ...good, id: '7', created_at: '2024-05-01T12:00:00+02:00' })
      let fault = ''
      try { molecule({ ...good, heavy_atom_count: 'many' }) } catch (error) { fault = error.describe() }
      process.stdout.write(JSON.stringify({ same: molecule(good) === good, fixed, fault }))
    `
    const output = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    )
    expect(JSON.parse(output)).toEqual({
      same: true,
      fixed: { ...canonical(), created_at: '2024-05-01T10:00:00Z' },
      fault: 'heavy_atom_count: expected an integer, got "many"',
    })
  })
})

describe('envelopes', () => {
  const item = object({ id: integer })

  it('reads a paged envelope and keeps its other members', () => {
    expect(
      page(item)({ count: '3', offset: 0, page_size: 2, objects: [{ id: 1 }, { id: '2' }] }),
    ).toEqual({
      count: 3,
      offset: 0,
      page_size: 2,
      objects: [{ id: 1 }, { id: 2 }],
    })
  })

  it('reads a bare array where a page was expected, without a count', () => {
    expect(page(item)([{ id: 1 }])).toEqual({
      count: undefined,
      offset: undefined,
      objects: [{ id: 1 }],
    })
  })

  it('reads an envelope where a bare array was expected', () => {
    expect(list(item)({ count: 1, objects: [{ id: '9' }] })).toEqual([{ id: 9 }])
    expect(list(item)([{ id: 9 }])).toEqual([{ id: 9 }])
  })

  it('names what is wrong with an envelope', () => {
    expect(() => readAnswer('x.list', page(item), { count: 1 })).toThrow(
      'x.list: unexpected answer: the answer: expected an array or an object with "objects", got {"count":1}.',
    )
    // A record that cannot be read is set aside, not the page (lenient-reading.test.ts).
    const read = readAnswer('x.list', page(item), { objects: [{ id: 'q' }] })
    expect(read.objects).toEqual([])
    expect(setAsideIn(read.objects)).toEqual([
      { index: 0, reason: 'id: expected an integer, got "q"' },
    ])
    expect(() => readAnswer('x.list', list(item), 'oops')).toThrow('expected an array, got "oops"')
  })
})
