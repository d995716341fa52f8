import type { ProtocolCriteriaResolver, VaultAccess } from '../../core/sim-core.ts'
import { invalid } from '../../core/http-error.ts'
import type { Params } from '../../core/params.ts'
import { SqlWhere } from '../../core/sql-where.ts'
import { readableProjects } from './access-rules.ts'

/**
 * Resolves the protocol_criteria of molecule and batch queries to the batches whose assay data
 * satisfies them. Each criterion selects batches with readout rows in runs of a protocol (or of
 * the protocols of a data set) that meet its run criterion and, with readout_definition_id, whose
 * readout meets the operator; criterion_type 'protocol field' selects by a protocol field value
 * instead. `negated` takes the complement among the batches the user reads; criteria combine
 * left to right by their junction. protocol_condition_ids, when given, limits the runs to those
 * ids (the simulator's runs are its protocol conditions).
 */

const RUN_CRITERIA = ['any', 'recent', 'run_date', 'run_id'] as const
const OPERATORS = [
  '=',
  '!=',
  '<',
  '>',
  '≤',
  '≥',
  '<=',
  '>=',
  'contains',
  'does not contain',
  'from',
] as const
const CRITERION_TYPES = ['data set or protocol', 'run date', 'protocol field'] as const
const JUNCTIONS = ['AND', 'OR'] as const

export const resolveProtocolCriteria: ProtocolCriteriaResolver = (access, criteria) => {
  const readableBatches = (): Set<number> =>
    new Set(
      (
        access.db
          .prepare(
            `SELECT DISTINCT batch_id FROM batch_projects JOIN batches ON batches.id = batch_projects.batch_id
             WHERE batches.vault_id = ? AND project_id IN (SELECT value FROM json_each(?))`,
          )
          .all(access.vault.id, readableProjects(access)) as { batch_id: number }[]
      ).map((row) => row.batch_id),
    )
  let result: Set<number> | undefined
  criteria.forEach((criterion, index) => {
    const junction = criterion.oneOf('junction', JUNCTIONS, 'AND')
    const negated = criterion.boolean('negated', false)
    let matches = matchCriterion(access, criterion)
    criterion.rejectUnknown()
    if (negated) {
      const all = readableBatches()
      matches = new Set([...all].filter((id) => !matches.has(id)))
    }
    if (index === 0 || result === undefined) result = matches
    else if (junction === 'OR') result = new Set([...result, ...matches])
    else result = new Set([...result].filter((id) => matches.has(id)))
  })
  return result ?? new Set()
}

function matchCriterion(access: VaultAccess, criterion: Params): Set<number> {
  const type = criterion.oneOf('criterion_type', CRITERION_TYPES, 'data set or protocol')
  const where = new SqlWhere()
    .add(`readout_rows.vault_id = ?`, access.vault.id)
    .add(`readout_rows.batch_id IS NOT NULL`)
    .add(`runs.project_id IN (SELECT value FROM json_each(?))`, readableProjects(access))
  const protocolId = criterion.integer('protocol_id', { min: 1 })
  const dataSetId = criterion.integer('data_set_id', { min: 1 })
  if (type === 'protocol field') {
    const field = criterion.requiredString('field')
    const query = criterion.string('query', { allowEmpty: true }) ?? ''
    where.add(
      `readout_rows.protocol_id IN (SELECT protocol_id FROM protocol_field_values WHERE name = ? AND value LIKE ?)`,
      field,
      `%${query}%`,
    )
  } else if (
    type === 'data set or protocol' &&
    (protocolId === undefined) === (dataSetId === undefined)
  ) {
    throw invalid(
      criterion.nameOf('protocol_id'),
      'or data_set_id: exactly one of the two is required',
    )
  }
  if (protocolId !== undefined) where.add(`readout_rows.protocol_id = ?`, protocolId)
  if (dataSetId !== undefined) {
    where.add(
      `readout_rows.protocol_id IN (SELECT id FROM protocols WHERE data_set_id = ?)`,
      dataSetId,
    )
  }
  addRunCriterion(criterion, where, type, access.sim.clock.nowSeconds())
  const conditions = criterion.ids('protocol_condition_ids')
  if (conditions && conditions.length > 0) where.ids('runs.id', conditions)
  addReadoutCriterion(criterion, where)
  const calculationError = criterion.string('calculation_error_type')
  if (calculationError !== undefined) {
    where.add(
      `EXISTS (SELECT 1 FROM readout_cells error_cells JOIN readout_definitions error_definitions
         ON error_definitions.id = error_cells.definition_id
       WHERE error_cells.row_id = readout_rows.id AND error_definitions.role = 'calculated'
       AND error_cells.number_value IS NULL AND error_cells.note LIKE ?)`,
      `%${calculationError}%`,
    )
  }
  return new Set(
    (
      access.db
        .prepare(
          `SELECT DISTINCT readout_rows.batch_id FROM readout_rows JOIN runs ON runs.id = readout_rows.run_id${where}`,
        )
        .all(...where.args) as { batch_id: number }[]
    ).map((row) => row.batch_id),
  )
}

function addRunCriterion(
  criterion: Params,
  where: SqlWhere,
  type: (typeof CRITERION_TYPES)[number],
  now: number,
): void {
  const runCriterion = criterion.oneOf(
    'run_criterion',
    RUN_CRITERIA,
    type === 'run date' ? 'run_date' : 'any',
  )
  if (runCriterion === 'run_id') {
    where.add(`runs.id = ?`, criterion.integer('run_id', { min: 1, required: true }))
  } else if (runCriterion === 'run_date') {
    const after = criterion.date('run_after')
    const before = criterion.date('run_before')
    if (after === undefined && before === undefined) {
      throw invalid(
        criterion.nameOf('run_after'),
        'or run_before is required with run_criterion run_date',
      )
    }
    if (after !== undefined) where.add(`runs.run_date >= ?`, after - (after % 86_400))
    if (before !== undefined) where.add(`runs.run_date < ?`, before)
  } else if (runCriterion === 'recent') {
    const days = criterion.integer('since_days_ago', { min: 0, required: true }) as number
    where.add(`runs.run_date >= ?`, now - (now % 86_400) - days * 86_400)
  }
}

function addReadoutCriterion(criterion: Params, where: SqlWhere): void {
  const definitionId = criterion.integer('readout_definition_id', { min: 1 })
  const operator = criterion.oneOf('operator', OPERATORS)
  const value = criterion.string('readout_value', { allowEmpty: true })
  const maximum = criterion.string('readout_value_maximum')
  if (definitionId === undefined) {
    if (operator !== undefined)
      throw invalid(criterion.nameOf('readout_definition_id'), 'is required with an operator')
    return
  }
  const cell = `EXISTS (SELECT 1 FROM readout_cells WHERE readout_cells.definition_id = ? AND readout_cells.row_id IN
    (SELECT id FROM readout_rows same WHERE same.run_id = readout_rows.run_id AND same.batch_id = readout_rows.batch_id)`
  if (operator === undefined) {
    where.add(`${cell})`, definitionId)
    return
  }
  if (value === undefined)
    throw invalid(criterion.nameOf('readout_value'), `is required with operator '${operator}'`)
  if (operator === 'contains' || operator === 'does not contain') {
    const test = `COALESCE(readout_cells.text_value, CAST(readout_cells.number_value AS TEXT)) LIKE ?`
    where.add(
      `${cell} AND ${operator === 'contains' ? '' : 'NOT '}${test})`,
      definitionId,
      `%${value}%`,
    )
    return
  }
  const number = Number(value)
  if (!Number.isFinite(number)) {
    if (operator === '=' || operator === '!=') {
      where.add(
        `${cell} AND readout_cells.text_value ${operator === '=' ? '=' : '!='} ?)`,
        definitionId,
        value,
      )
      return
    }
    throw invalid(
      criterion.nameOf('readout_value'),
      `must be a number with operator '${operator}', got '${value}'`,
    )
  }
  if (operator === 'from') {
    const upper = Number(maximum)
    if (maximum === undefined || !Number.isFinite(upper)) {
      throw invalid(
        criterion.nameOf('readout_value_maximum'),
        "must be a number with operator 'from'",
      )
    }
    where.add(
      `${cell} AND readout_cells.number_value BETWEEN ? AND ?)`,
      definitionId,
      number,
      upper,
    )
    return
  }
  const sql = {
    '=': '=',
    '!=': '!=',
    '<': '<',
    '>': '>',
    '≤': '<=',
    '<=': '<=',
    '≥': '>=',
    '>=': '>=',
  }[operator]
  where.add(`${cell} AND readout_cells.number_value ${sql} ?)`, definitionId, number)
}
