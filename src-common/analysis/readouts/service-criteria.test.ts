import { describe, expect, it } from 'vitest'
import type { ResultsCriterion } from './criteria.ts'
import { parseCriteria } from './criteria-text.ts'
import { fromServiceCriteria, toServiceCriteria } from './service-criteria.ts'
import { catalogue } from './test-support/catalogue.ts'

const KINASE = 'Kinase IC50 (ADP-Glo)'

function criteria(...texts: string[]): ResultsCriterion[] {
  const parsed = parseCriteria(texts, catalogue)
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join('; '))
  return parsed.criteria
}

function written(...texts: string[]) {
  const result = toServiceCriteria(criteria(...texts))
  if (!result.ok) throw new Error(result.message)
  return result.criteria
}

function readErrors(raw: unknown): string[] {
  const result = fromServiceCriteria(raw, catalogue)
  if (result.ok) throw new Error(`read: ${JSON.stringify(result.criteria)}`)
  return result.errors.map((error) => error.message)
}

describe('writing the vault’s protocol_criteria', () => {
  it('writes ids, run criteria, operators and values in the readout’s unit', () => {
    expect(
      written(
        `${KINASE}: IC50 < 1 uM`,
        `or not ${KINASE}: IC50 <= 300 nM; run date from 2024-01-01 to 2024-03-31`,
        `${KINASE}: IC50 from 0.1 to 1; run in the last 30 days`,
        'run date after 2024-01-31',
        `${KINASE}: Comment does not contain "top"`,
        `${KINASE}: IC50 = "ND"`,
        'Not Tested Panel: Passed QC = no',
        `${KINASE}: IC50 >= 2; run 7`,
        `${KINASE}: IC50 != 5`,
        `${KINASE}: IC50`,
      ),
    ).toEqual([
      {
        protocol_id: 1,
        run_criterion: 'any',
        readout_definition_id: 14,
        operator: '<',
        readout_value: '1',
      },
      {
        protocol_id: 1,
        run_criterion: 'run_date',
        run_after: '2024-01-01',
        run_before: '2024-04-01',
        readout_definition_id: 14,
        operator: '≤',
        readout_value: '0.3',
        negated: true,
        junction: 'OR',
      },
      {
        protocol_id: 1,
        run_criterion: 'recent',
        since_days_ago: 30,
        readout_definition_id: 14,
        operator: 'from',
        readout_value: '0.1',
        readout_value_maximum: '1',
        junction: 'AND',
      },
      {
        criterion_type: 'run date',
        run_criterion: 'run_date',
        run_after: '2024-02-01',
        junction: 'AND',
      },
      {
        protocol_id: 1,
        run_criterion: 'any',
        readout_definition_id: 13,
        operator: 'does not contain',
        readout_value: 'top',
        junction: 'AND',
      },
      {
        protocol_id: 1,
        run_criterion: 'any',
        readout_definition_id: 14,
        operator: '=',
        readout_value: 'ND',
        junction: 'AND',
      },
      {
        protocol_id: 4,
        run_criterion: 'any',
        readout_definition_id: 43,
        operator: '=',
        readout_value: 'false',
        junction: 'AND',
      },
      {
        protocol_id: 1,
        run_criterion: 'run_id',
        run_id: 7,
        readout_definition_id: 14,
        operator: '≥',
        readout_value: '2',
        junction: 'AND',
      },
      {
        protocol_id: 1,
        run_criterion: 'any',
        readout_definition_id: 14,
        operator: '!=',
        readout_value: '5',
        junction: 'AND',
      },
      { protocol_id: 1, run_criterion: 'any', readout_definition_id: 14, junction: 'AND' },
    ])
  })

  it('refuses a range with an exclusive end, which the vault’s inclusive from cannot express', () => {
    const [criterion] = criteria(`${KINASE}: IC50 from 1 to 2`)
    const open = {
      ...criterion!,
      readout: {
        ...criterion!.readout!,
        comparison: {
          kind: 'range' as const,
          scale: 'number' as const,
          lower: { value: 1, inclusive: false },
          upper: { value: 2, inclusive: false },
        },
      },
    }
    expect(toServiceCriteria([open])).toEqual({
      ok: false,
      message:
        'Criterion 1 is a range with an exclusive end, which the vault\'s inclusive "from" cannot express',
    })
  })

  it('refuses aggregate criteria, which the vault’s search has no form for', () => {
    expect(toServiceCriteria(criteria(KINASE, `${KINASE}: aggregate IC50 < 1`))).toEqual({
      ok: false,
      message:
        "Criterion 2 asks for an aggregate, which the vault's search cannot: it matches single readout rows",
    })
  })
})

describe('reading the vault’s protocol_criteria', () => {
  it('reads back what it writes', () => {
    const original = criteria(
      `${KINASE}: IC50 < 1 uM`,
      `or not ${KINASE}: IC50 <= 300 nM; run date from 2024-01-01 to 2024-03-31`,
      `${KINASE}: IC50 from 0.1 to 1; run in the last 30 days`,
      'not run date before 2024-04-01',
      `${KINASE}: Comment contains "a \\"b\\""`,
      `${KINASE}: IC50 != "ND"`,
      'Not Tested Panel: Passed QC = yes',
      'Not Tested Panel: Assay date >= 2024-01-01',
      `${KINASE}: IC50 > 2; run 7`,
      `${KINASE}: IC50 != 5`,
      `${KINASE}: IC50`,
      'GPCR Radioligand Displacement',
    )
    const service = toServiceCriteria(original)
    expect(service.ok).toBe(true)
    expect(fromServiceCriteria(service.ok ? service.criteria : null, catalogue)).toEqual({
      ok: true,
      criteria: original,
    })
  })

  it('reads the forms a saved search may hold: strings, ASCII operators, times', () => {
    const result = fromServiceCriteria(
      [
        {
          protocol_id: '1',
          readout_definition_id: '14',
          operator: '>=',
          readout_value: 2.5,
          run_criterion: 'run_date',
          run_after: '2024-01-01T09:30:00Z',
          run_before: '2024-02-01T12:00:00Z',
        },
        { protocol_id: 2, negated: 'true', junction: 'or' },
        { protocol_id: 1, readout_definition_id: 14, operator: '=', readout_value: 'inactive' },
      ],
      catalogue,
    )
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.criteria[0]).toMatchObject({
      runs: { kind: 'dates', onOrAfter: '2024-01-01', before: '2024-02-02' },
      readout: { comparison: { lower: { value: 2.5, inclusive: true } } },
    })
    expect(result.criteria[1]).toMatchObject({ protocolId: 2, negated: true, junction: 'OR' })
    // As the vault does, = with a value that is not a number compares text.
    expect(result.criteria[2]?.readout?.comparison).toEqual({
      kind: 'text equal',
      text: 'inactive',
    })
  })

  it('refuses what it cannot apply offline, naming it, and checks values as typed criteria', () => {
    expect(readErrors({ protocol_id: 1 })).toEqual(['protocol_criteria must be a list'])
    expect(
      readErrors([
        { protocol_id: 99 },
        { protocol_id: 1, readout_definition_id: 24 },
        { data_set_id: 3 },
        { criterion_type: 'protocol field', field: 'Target', query: 'EGFR' },
        { protocol_id: 1, readout_definition_id: 14, operator: 'about', readout_value: '1' },
        { protocol_id: 1, readout_definition_id: 14, operator: '<' },
        { protocol_id: 1, readout_definition_id: 14, operator: 'from', readout_value: '1' },
        { protocol_id: 1, readout_definition_id: 14, operator: '<', readout_value: 'abc' },
        {
          protocol_id: 1,
          readout_definition_id: 14,
          operator: 'from',
          readout_value: '5',
          readout_value_maximum: '1',
        },
        { protocol_id: 1, run_criterion: 'recent', since_days_ago: -1 },
        { protocol_id: 1, run_criterion: 'run_date' },
        {
          protocol_id: 1,
          run_criterion: 'run_date',
          run_after: '2024-03-01',
          run_before: '2024-01-01',
        },
        { protocol_id: 1, run_criterion: 'run_date', run_after: 'soon' },
        { protocol_id: 1, operator: '<', readout_value: '1' },
        { criterion_type: 'other' },
        { criterion_type: 'run date', run_criterion: 'any' },
        'protocol 1',
      ]),
    ).toEqual([
      'protocol 99 is not among the protocols: "Kinase IC50 (ADP-Glo) (1)", "GPCR Radioligand Displacement (2)", "Kinetic Solubility (PBS pH 7.4) (3)", "Not Tested Panel (4)", "hERG Patch (5)", "HERG patch (6)", "Panel: CYP450 (7)", "Case Panel (8)" and 1 more',
      'readout definition 24 is not one of protocol "Kinase IC50 (ADP-Glo)"\'s: "Concentration (10)", "% Inhibition (11)", "Signal (12)", "Comment (13)", "IC50 (14)"',
      'data_set_id is not supported in offline searches',
      'protocol field criteria are not supported in offline searches',
      'unknown operator "about"',
      'readout_value is required with operator "<"',
      'readout_value_maximum is required with operator "from"',
      '"IC50" is a numeric readout: "abc" is not a number',
      'from 5 to 1: the lower bound is above the upper bound (5 and 1 uM)',
      'since_days_ago must be a whole number from 0',
      'run_after or run_before is required with run_criterion run_date',
      'run_after 2024-03-01 is not before run_before 2024-01-01',
      'run_after and run_before must be ISO dates',
      'readout_definition_id is required with an operator',
      'unknown criterion_type "other"',
      'a run date criterion needs a run_criterion other than any',
      'a protocol criterion must be an object',
    ])
  })
})
