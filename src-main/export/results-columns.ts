/**
 * What a results table's export writes of each row: the molecule or batch (its ID, a batch's
 * molecule, its name), its structure as SMILES where the format holds no molfile, and per readout
 * column four values, so that other tools can compute with them rather than parse `>30 uM`:
 * - `PROTOCOL: READOUT`: the aggregate as the readout index keeps it: a number in the readout
 *   definition's unit (raw, full precision; for a qualified value, its bound), a date as its ISO
 *   day, other values as the vault gave them;
 * - `PROTOCOL: READOUT modifier`: `<`, `<=`, `>`, `>=` or `~` for a qualified value, else empty;
 * - `PROTOCOL: READOUT unit`: the definition's unit, beside every number;
 * - `PROTOCOL: READOUT n`: how many readout rows the aggregate summarises.
 * An empty cell (no aggregate) leaves all four empty.
 */
import type {
  ProtocolEntry,
  ReadoutDefinitionEntry,
} from '../../src-common/analysis/readouts/catalogue.ts'
import type { ResultsCell, ResultsLevel } from '../../src-common/analysis/readouts/results-table.ts'
import { toText, type JsonObject } from '../../src-common/values.ts'
import {
  fixedColumns,
  type ExportColumn,
  type ExportColumns,
  type ExportRecord,
  type ExportValue,
} from './columns.ts'

/** A column of the results table, named from the vault's catalogue. */
export interface ResultsExportColumn {
  protocol: ProtocolEntry
  readout: ReadoutDefinitionEntry
}

export function resultsColumns(
  level: ResultsLevel,
  readouts: readonly ResultsExportColumn[],
  options: { smiles: boolean },
): ExportColumns {
  const columns: ExportColumn[] = [
    { header: 'ID', date: false, value: ({ result }) => result?.subjectId ?? null },
    ...(level === 'batch'
      ? [
          {
            header: 'Molecule ID',
            date: false,
            value: ({ result }: ExportRecord) => result?.moleculeId ?? null,
          },
        ]
      : []),
    { header: 'Name', date: false, value: ({ result }) => result?.name ?? null },
    ...(options.smiles
      ? [{ header: 'SMILES', date: false, value: ({ row }: ExportRecord) => smilesOf(row.json) }]
      : []),
    ...readouts.flatMap(({ protocol, readout }, index): ExportColumn[] => {
      const name = `${protocol.name}: ${readout.name}`
      const cell = (record: ExportRecord): ResultsCell | null => record.result?.cells[index] ?? null
      return [
        {
          header: name,
          date: readout.valueType === 'date',
          value: (record) => valueOf(cell(record)),
        },
        {
          header: `${name} modifier`,
          date: false,
          value: (record) => cell(record)?.modifier ?? null,
        },
        {
          header: `${name} unit`,
          date: false,
          value: (record) => (numberOf(cell(record)) === null ? null : readout.unit),
        },
        { header: `${name} n`, date: false, value: (record) => cellCount(cell(record)) },
      ]
    }),
  ]
  return fixedColumns(columns)
}

/** A molecule's SMILES as its record gives it (CXSMILES when that is all it has). */
export function smilesOf(json: JsonObject): string | null {
  for (const member of ['smiles', 'cxsmiles']) {
    const text = toText(json[member])?.trim()
    if (text) return text
  }
  return null
}

function numberOf(cell: ResultsCell | null): number | null {
  return cell?.kind === 'number' && cell.number !== null && Number.isFinite(cell.number)
    ? cell.number
    : null
}

function valueOf(cell: ResultsCell | null): ExportValue {
  if (cell === null) return null
  const number = numberOf(cell)
  if (number !== null) return number
  if (cell.kind === 'date' && cell.number !== null && Number.isFinite(cell.number)) {
    const iso = new Date(cell.number).toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso
  }
  const text = cell.text?.trim()
  return text ? text : null
}

function cellCount(cell: ResultsCell | null): ExportValue {
  if (cell === null || (cell.kind === 'empty' && !cell.text)) return null
  return cell.n
}
