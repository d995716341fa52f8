import { describe, expect, it } from 'vitest'
import { newSample } from '../outbox/payloads/inventory-samples.ts'
import {
  checkPlacement,
  freePositions,
  sampleUnits,
  type LocationPlaces,
} from './sample-placement.ts'
import {
  describeWellProblem,
  planWells,
  readWellList,
  referencesOf,
  wellListLimits,
  type BatchResolution,
} from './well-list.ts'

const wellsOf = (text: string, size: 6 | 96 | 384 | 1536 = 96) =>
  readWellList(text, size).lines.map((line) => [line.line, line.label, line.reference])

const messagesOf = (text: string, size: 6 | 96 | 384 | 1536 = 96) =>
  readWellList(text, size).problems.map(describeWellProblem)

describe('readWellList', () => {
  it('reads commas, tabs, semicolons and pipes, with or without quotes', () => {
    const expected = [
      [2, 'A01', 'VD-1-001'],
      [3, 'B12', '42'],
    ]
    expect(wellsOf('well,batch\nA1,VD-1-001\nB12,42\n')).toEqual(expected)
    expect(wellsOf('well\tbatch\nA1\tVD-1-001\nB12\t42')).toEqual(expected)
    expect(wellsOf('well;batch\r\nA1;VD-1-001\r\nB12;42\r\n')).toEqual(expected)
    expect(wellsOf('well|batch\nA1|VD-1-001\nB12|42')).toEqual(expected)
    expect(wellsOf('"well","batch"\n"A1","VD-1-001"\n"B12","42"')).toEqual(expected)
    expect(readWellList('well;batch\nA1;1', 96).delimiter).toBe(';')
  })

  it('drops a UTF-8 byte order mark and reads header variants in any case and spacing', () => {
    const reading = readWellList('\uFEFFWell Position,Batch ID,Note\nA01,7,first\n', 96)
    expect(reading.headers).toEqual({ well: 'Well Position', batch: 'Batch ID' })
    expect(reading.lines.map((line) => line.reference)).toEqual(['7'])
    for (const [well, batch] of [
      ['pos', 'batch'],
      ['POSITION', 'molecule_batch_identifier'],
      ['Well', 'Batch Name'],
      ['Destination Well', 'identifier'],
    ]) {
      expect(wellsOf(`note,${batch},${well}\nx,B-9,C3`), `${well}/${batch}`).toEqual([
        [2, 'C03', 'B-9'],
      ])
    }
  })

  it('reads a list without a header as well then batch', () => {
    expect(wellsOf('A1,12\nh12,VD-2-001')).toEqual([
      [1, 'A01', '12'],
      [2, 'H12', 'VD-2-001'],
    ])
  })

  it('numbers lines as the file has them: blank lines and quoted line breaks count', () => {
    const text = 'well,batch\n\nA1,"two\nlines"\n\n\nA2,5\n'
    expect(wellsOf(text)).toEqual([
      [3, 'A01', 'two\nlines'],
      [7, 'A02', '5'],
    ])
  })

  it('reports positions that are no wells or are off the plate, on their lines', () => {
    expect(messagesOf('well,batch\nA1,1\nI1,2\nA13,3\n7,4\nA0,5\nA1,6', 96)).toEqual([
      'line 3: I01 is not on a 96-well plate (8 rows × 12 columns, A01 to H12).',
      'line 4: A13 is not on a 96-well plate (8 rows × 12 columns, A01 to H12).',
      'line 5: "7" is not a position: give a row letter and a column number, such as A01.',
      'line 6: "A0" is not a position: give a row letter and a column number, such as A01.',
      'line 7: Well A01 is given twice: also on line 2.',
    ])
    // The same positions fit a larger plate; AF48 is the last well of 1536.
    expect(messagesOf('well,batch\nI1,2\nA13,3\nAF48,4', 1536)).toEqual([])
    expect(messagesOf('well,batch\nAG1,2', 1536)).toEqual([
      'line 2: AG01 is not on a 1536-well plate (32 rows × 48 columns, A01 to AF48).',
    ])
  })

  it('counts A1, a01 and A 1 as the same well', () => {
    expect(messagesOf('well,batch\nA1,1\na01,2\nA 1,3')).toEqual([
      'line 3: Well A01 is given twice: also on line 2.',
      'line 4: Well A01 is given twice: also on line 2.',
    ])
  })

  it('reports a line without a batch or a well, and a quote left open', () => {
    expect(messagesOf('well,batch\nA1,\n,7\nA2,"open\n')).toEqual([
      'line 2: Well A01 names no batch.',
      'line 3: No well position is given.',
      'line 4: A quoted cell is never closed: its closing " is missing.',
    ])
  })

  it('names the columns it lacks and the ones the header has', () => {
    expect(messagesOf('position,compound\nA1,aspirin')).toEqual([
      'line 1: The header line names no column of batches (batch, batch_id, batch name or molecule_batch_identifier). It has: position, compound.',
    ])
    expect(messagesOf('plate;compound\nP1;aspirin')[0]).toContain(
      'names no column of well positions (well, pos or position) and no column of batches',
    )
  })

  it('refuses empty, header-only and oversized lists with one clear message', () => {
    expect(messagesOf('')).toEqual(['The well list is empty.'])
    expect(messagesOf('\uFEFF \n\n')).toEqual(['The well list is empty.'])
    expect(messagesOf('well,batch\n')).toEqual(['No wells are listed.'])
    expect(messagesOf('A1,1\n'.repeat(wellListLimits.lines + 1))[0]).toMatch(
      /^The well list has 10,001 lines; a 96-well plate needs at most 96\.$/,
    )
    expect(messagesOf('x'.repeat(wellListLimits.characters + 1))[0]).toMatch(
      /has 2,000,001 characters/,
    )
  })
})

describe('planWells', () => {
  const resolution = (reference: string, ids: number[]): BatchResolution => ({
    reference,
    matches: ids.map((batchId) => ({ batchId, label: `VD-${batchId}`, by: 'name' })),
    count: ids.length,
  })

  it('lays the batches found over the wells, and reports unknown and ambiguous ones per line', () => {
    const reading = readWellList('well,batch\nA1,lot-a\nA2,lot-b\nA3,001\nB1,lot-a\nZ1,x', 6)
    expect(referencesOf(reading)).toEqual(['lot-a', 'lot-b', '001'])
    const plan = planWells(reading, [
      resolution('lot-a', [11]),
      resolution('lot-b', []),
      resolution('001', [1, 2, 3, 4, 5, 6, 7]),
    ])
    expect(plan.wells).toEqual([
      { pos: 'A01', batch: 11 },
      { pos: 'B01', batch: 11 },
    ])
    expect(plan.problems.map(describeWellProblem)).toEqual([
      'line 3: No cached batch has the id, name or identifier "lot-b".',
      'line 4: "001" names 7 batches: VD-1 (id 1, by name), VD-2 (id 2, by name), VD-3 (id 3, by name), VD-4 (id 4, by name), VD-5 (id 5, by name) and 2 more. Give the batch id or identifier instead.',
      'line 6: Z01 is not on a 6-well plate (2 rows × 3 columns, A01 to B03).',
    ])
  })
})

describe('checkPlacement', () => {
  const box: LocationPlaces = {
    id: 3,
    name: 'Box 1',
    grid: { rows: 2, columns: 2 },
    positionLimit: 4,
    samples: 2,
    taken: ['A01', 'B02'],
  }

  it('labels a free position as the vault does and refuses taken or off-grid ones', () => {
    expect(checkPlacement(box, 'a2')).toEqual({ ok: true, position: 'A02' })
    expect(checkPlacement(box, '')).toEqual({ ok: true, position: null })
    expect(checkPlacement(box, 'A1')).toMatchObject({
      ok: false,
      field: 'position',
      message: 'A01 of Box 1 already holds a sample. Free: A02, B01.',
    })
    expect(checkPlacement(box, 'C1')).toMatchObject({
      ok: false,
      message: 'C01 is not on Box 1 (2 rows × 2 columns, A01 to B02).',
    })
    expect(freePositions(box)).toEqual(['A02', 'B01'])
  })

  it('refuses a full location and a position on a shelf', () => {
    expect(checkPlacement({ ...box, samples: 4 }, 'A2')).toMatchObject({
      ok: false,
      field: 'location',
      message: 'Box 1 is full: it holds 4 of at most 4 samples.',
    })
    const shelf = { ...box, name: 'Shelf 1', grid: null, positionLimit: null, taken: [] }
    expect(checkPlacement(shelf, null)).toEqual({ ok: true, position: null })
    expect(checkPlacement(shelf, 'A1')).toMatchObject({
      ok: false,
      message: 'Shelf 1 has no rows and columns, so a sample there has no position.',
    })
  })
})

describe('sampleUnits', () => {
  it('are the units sample.create accepts', () => {
    expect([...sampleUnits]).toEqual(newSample.shape.units.options)
  })
})
