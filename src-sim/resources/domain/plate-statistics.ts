import type { Database } from 'better-sqlite3'
import { formatDay } from '../../core/dates.ts'
import { summarize, zPrime, type Summary } from '../../pure/assay-statistics.ts'

/**
 * Plate statistics of a run or a plate: per run, plate and numeric measured readout, the number
 * of wells, the positive (+) and negative (-) control summaries, Z' and signal to background.
 */

interface WellValue {
  run_id: number
  run_date: number
  plate_id: number
  plate_name: string
  definition_id: number
  definition_name: string
  control_state: string | null
  value: number
}

export function plateStatistics(
  db: Database,
  scope: { runId: number } | { plateId: number; readableProjects: string },
): Record<string, unknown>[] {
  const filter =
    'runId' in scope
      ? { clause: `readout_rows.run_id = ?`, args: [scope.runId] }
      : {
          clause: `readout_rows.plate_id = ? AND runs.project_id IN (SELECT value FROM json_each(?))`,
          args: [scope.plateId, scope.readableProjects],
        }
  const values = db
    .prepare(
      `SELECT readout_rows.run_id, runs.run_date, readout_rows.plate_id, plates.name AS plate_name,
              readout_definitions.id AS definition_id, readout_definitions.name AS definition_name,
              readout_rows.control_state, readout_cells.number_value AS value
       FROM readout_rows
       JOIN runs ON runs.id = readout_rows.run_id
       JOIN plates ON plates.id = readout_rows.plate_id
       JOIN readout_cells ON readout_cells.row_id = readout_rows.id
       JOIN readout_definitions ON readout_definitions.id = readout_cells.definition_id
       WHERE ${filter.clause} AND readout_rows.type = 'detail row'
         AND readout_definitions.role = 'measured' AND readout_cells.number_value IS NOT NULL
         AND readout_cells.outlier = 0
       ORDER BY readout_rows.run_id, readout_rows.plate_id, readout_definitions.position`,
    )
    .all(...filter.args) as WellValue[]
  const groups = new Map<string, WellValue[]>()
  for (const value of values) {
    const key = `${value.run_id}:${value.plate_id}:${value.definition_id}`
    const group = groups.get(key)
    if (group) group.push(value)
    else groups.set(key, [value])
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!
    const positive = summarize(group.filter((v) => v.control_state === '+').map((v) => v.value))
    const negative = summarize(group.filter((v) => v.control_state === '-').map((v) => v.value))
    const quality = positive && negative ? zPrime(positive, negative) : undefined
    return {
      run: { id: first.run_id, run_date: formatDay(first.run_date) },
      plate: { id: first.plate_id, name: first.plate_name },
      readout_definition: { id: first.definition_id, name: first.definition_name },
      wells: group.length,
      positive_controls: summaryRecord(positive),
      negative_controls: summaryRecord(negative),
      z_prime: quality === undefined ? null : round(quality),
      signal_to_background:
        positive && negative && negative.mean !== 0 ? round(positive.mean / negative.mean) : null,
    }
  })
}

function summaryRecord(summary: Summary | undefined): Record<string, number> | null {
  return summary
    ? {
        count: summary.count,
        mean: round(summary.mean),
        standard_deviation: round(summary.deviation),
      }
    : null
}

function round(value: number): number {
  return Number(value.toPrecision(4))
}
