import { describe, expect, it } from 'vitest'
import { isOnPlate, parseWellLabel, plateFormat, rowLabel, wellLabel } from './well-positions.ts'

const plate96 = plateFormat(96)!
const plate1536 = plateFormat(1536)!

describe('well positions', () => {
  it('knows the standard formats and nothing else', () => {
    expect(plate96).toEqual({ size: 96, rows: 8, columns: 12 })
    expect(plateFormat(100)).toBeUndefined()
  })

  it('labels rows past Z with two letters', () => {
    expect([1, 26, 27, 32].map(rowLabel)).toEqual(['A', 'Z', 'AA', 'AF'])
    expect(() => rowLabel(0)).toThrow('row 0 is not a positive integer')
  })

  it('writes and reads labels in both directions', () => {
    expect(wellLabel({ row: 1, col: 1 }, plate96)).toBe('A01')
    expect(wellLabel({ row: 8, col: 12 }, plate96)).toBe('H12')
    expect(wellLabel({ row: 32, col: 48 }, plate1536)).toBe('AF48')
    for (const label of ['A01', 'H12', 'D07']) {
      expect(wellLabel(parseWellLabel(label, plate96)!, plate96)).toBe(label)
    }
    expect(parseWellLabel('AF48', plate1536)).toEqual({ row: 32, col: 48 })
  })

  it('accepts short and lower-case labels', () => {
    expect(parseWellLabel('c5', plate96)).toEqual({ row: 3, col: 5 })
  })

  it('rejects labels off the plate or malformed', () => {
    expect(parseWellLabel('I01', plate96)).toBeUndefined()
    expect(parseWellLabel('A13', plate96)).toBeUndefined()
    expect(parseWellLabel('A00', plate96)).toBeUndefined()
    expect(parseWellLabel('1A', plate96)).toBeUndefined()
    expect(isOnPlate({ row: 1.5, col: 1 }, plate96)).toBe(false)
  })
})
