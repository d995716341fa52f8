import { describe, expect, it } from 'vitest'
import { moleculeRecords } from '../../test/store/fixtures/molecule-records.ts'
import { recordKind } from './record-kinds.ts'
import { joinParts, PageBuilder, type PreparedPage } from './record-rows.ts'

const molecules = recordKind('molecules')

function prepared(records: readonly unknown[], firstIndex = 0): PreparedPage {
  const builder = new PageBuilder(molecules, 1, null, firstIndex)
  for (const record of records) builder.add(record)
  return builder.finish()
}

describe('a page made ready in parts', () => {
  it('joins into the page made ready at once: rows, batches, search and projects', () => {
    const records: unknown[] = moleculeRecords(10)
    records[3] = 'junk'
    records[5] = { ...(records[5] as object), batches: [{ id: 'no id' }, { id: 991 }] }
    // Molecule 2 again in a later part, with other batches: its later occurrence wins.
    records[8] = { ...(records[1] as object), batches: [{ id: 992 }] }
    const parts = [0, 4, 7].map((start, index, starts) =>
      prepared(records.slice(start, starts[index + 1]), start),
    )
    const whole = prepared(records)
    const joined = joinParts(parts)
    const byIndex = (page: PreparedPage) =>
      [...page.rejected].sort((a, b) => a.index - b.index || a.reason.localeCompare(b.reason))
    expect({ ...joined, rejected: byIndex(joined) }).toEqual({ ...whole, rejected: byIndex(whole) })
    expect(joined.nested?.ids).not.toContain(
      (records[1] as { batches: { id: number }[] }).batches[0]!.id,
    )
    expect(joined.nested?.ids).toContain(992)
  })

  it('leaves a page of one part as it is', () => {
    const page = prepared(moleculeRecords(3))
    expect(joinParts([page])).toBe(page)
  })
})
