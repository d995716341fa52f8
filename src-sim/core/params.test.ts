import { describe, expect, it } from 'vitest'
import { parseDateParameter } from './dates.ts'
import { HttpError } from './http-error.ts'
import { Params } from './params.ts'

function failure(run: () => unknown): HttpError {
  try {
    run()
  } catch (error) {
    if (error instanceof HttpError) return error
    throw error
  }
  throw new Error('Expected a failure')
}

describe('Params', () => {
  it('reads the same values from a query string and from a JSON body', () => {
    const fromQuery = Params.fromSearchParams(
      new URLSearchParams('page_size=20&only_ids=true&projects=1,2&names[]=a&names[]=b'),
    )
    const fromBody = Params.fromBody({
      page_size: 20,
      only_ids: true,
      projects: [1, 2],
      names: ['a', 'b'],
    })
    for (const params of [fromQuery, fromBody]) {
      expect(params.integer('page_size', { max: 1000 })).toBe(20)
      expect(params.boolean('only_ids', false)).toBe(true)
      expect(params.ids('projects')).toEqual([1, 2])
      expect(params.strings('names')).toEqual(['a', 'b'])
      expect(() => params.rejectUnknown()).not.toThrow()
    }
  })

  it('answers 422 naming the member, nested members included, and every unknown member', () => {
    expect(
      failure(() => Params.fromBody({ page_size: 5000 }).integer('page_size', { max: 1000 }))
        .message,
    ).toBe('page_size must be at most 1000, got 5000')
    const nested = Params.fromBody({ criteria: [{ junction: 'NAND' }] }).objects('criteria')![0]!
    const junction = failure(() => nested.oneOf('junction', ['AND', 'OR'] as const))
    expect(junction.status).toBe(422)
    expect(junction.message).toContain("criteria[0].junction must be one of 'AND', 'OR'")
    const unknown = Params.fromBody({ name: 'x', colour: 'red', size: 2 })
    unknown.string('name')
    expect(failure(() => unknown.rejectUnknown()).message).toBe(
      "'colour', 'size' are not known parameters here",
    )
    expect(
      failure(() => Params.fromBody({ projects: [1, 'x'] }).ids('projects')).message,
    ).toContain('projects[1]')
    expect(failure(() => Params.fromBody([1, 2])).status).toBe(400)
  })
})

describe('parseDateParameter', () => {
  const utc = (text: string) => Date.parse(text) / 1000

  it('reads plain dates and local times in the user’s zone, and explicit offsets, dropping fractions', () => {
    expect(parseDateParameter('2025-06-01', 'UTC', 'second')).toBe(utc('2025-06-01T00:00:00Z'))
    expect(parseDateParameter('2025-06-01', 'America/New_York', 'second')).toBe(
      utc('2025-06-01T04:00:00Z'),
    )
    expect(parseDateParameter('2025-01-15T08:30:00', 'Europe/Berlin', 'second')).toBe(
      utc('2025-01-15T07:30:00Z'),
    )
    expect(parseDateParameter('2025-01-15T08:30:00.999+05:30', 'Europe/Berlin', 'second')).toBe(
      utc('2025-01-15T03:00:00Z'),
    )
    expect(parseDateParameter('2025-03-30T03:30:00', 'Europe/Berlin', 'second')).toBe(
      utc('2025-03-30T01:30:00Z'),
    )
  })

  it('keeps microseconds when asked (inventory samples)', () => {
    expect(parseDateParameter('2025-01-15T08:30:00.123456Z', 'UTC', 'microsecond')).toBe(
      utc('2025-01-15T08:30:00Z') * 1e6 + 123456,
    )
    expect(parseDateParameter('2025-01-15T08:30:00.5Z', 'UTC', 'microsecond')).toBe(
      utc('2025-01-15T08:30:00Z') * 1e6 + 500000,
    )
  })

  it('rejects impossible dates and other formats', () => {
    for (const text of [
      '2025-02-30',
      '2025-13-01',
      '15/01/2025',
      '2025-01-15T25:00:00',
      'yesterday',
    ]) {
      expect(() => parseDateParameter(text, 'UTC', 'second'), text).toThrow(
        /not a (valid calendar )?date/,
      )
    }
  })
})
