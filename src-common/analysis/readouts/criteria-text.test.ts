import { describe, expect, it } from 'vitest'
import type { Comparison } from './comparisons.ts'
import type { ResultsCriterion } from './criteria.ts'
import { formatCriterion, parseCriteria, parseCriterion } from './criteria-text.ts'
import { catalogue } from './test-support/catalogue.ts'

function parsed(text: string): ResultsCriterion {
  const result = parseCriterion(text, catalogue)
  if (!result.ok) throw new Error(`${text}: ${result.error.message}`)
  return result.criterion
}

function comparison(text: string): Comparison | undefined {
  return parsed(text).readout?.comparison
}

function refused(text: string): string {
  const result = parseCriterion(text, catalogue)
  if (result.ok) throw new Error(`${text} parsed: ${JSON.stringify(result.criterion)}`)
  expect(result.error.text).toBe(text)
  return result.error.message
}

const KINASE = 'Kinase IC50 (ADP-Glo)'

describe('parsing the text form of a criterion', () => {
  it('reads a protocol, a readout, an operator and a value with its unit', () => {
    expect(parsed(`${KINASE}: IC50 < 1 uM`)).toEqual({
      junction: 'AND',
      negated: false,
      protocolId: 1,
      runs: { kind: 'any' },
      readout: {
        definitionId: 14,
        valueType: 'number',
        unit: 'uM',
        aggregation: 'geometric mean',
        scope: 'any row',
        comparison: {
          kind: 'range',
          scale: 'number',
          lower: null,
          upper: { value: 1, inclusive: false },
        },
      },
    })
  })

  it('converts the value to the readout’s unit: 1 uM on a readout kept in nM is 1000', () => {
    expect(comparison('GPCR Radioligand Displacement: IC50 < 1 uM')).toMatchObject({
      upper: { value: 1000, inclusive: false },
    })
    expect(comparison(`${KINASE}: IC50 <= 300 nM`)).toMatchObject({
      upper: { value: 0.3, inclusive: true },
    })
    expect(comparison(`${KINASE}: IC50 >= 2`)).toMatchObject({
      lower: { value: 2, inclusive: true },
      upper: null,
    })
    expect(comparison(`${KINASE}: IC50 ≥ 2µM`)).toMatchObject({ lower: { value: 2 } })
  })

  it('reads every operator', () => {
    const at = (value: number) => ({ value, inclusive: true })
    expect(comparison(`${KINASE}: IC50 = 5`)).toMatchObject({ lower: at(5), upper: at(5) })
    expect(comparison(`${KINASE}: IC50 == 5`)).toMatchObject({ lower: at(5), upper: at(5) })
    expect(comparison(`${KINASE}: IC50 != 5`)).toEqual({
      kind: 'not equal',
      scale: 'number',
      value: 5,
    })
    expect(comparison(`${KINASE}: IC50 ≠ 5`)).toMatchObject({ kind: 'not equal' })
    expect(comparison(`${KINASE}: IC50 > 5`)).toMatchObject({
      lower: { value: 5, inclusive: false },
    })
    expect(comparison(`${KINASE}: IC50 from 100 nM to 1 uM`)).toMatchObject({
      lower: at(0.1),
      upper: at(1),
    })
    expect(comparison(`${KINASE}: IC50 from 0.1 to 1 uM`)).toMatchObject({
      lower: at(0.1),
      upper: at(1),
    })
    expect(comparison(`${KINASE}: IC50 from 100 to 1000 nM`)).toMatchObject({
      lower: at(0.1),
      upper: at(1),
    })
    expect(comparison(`${KINASE}: Comment contains precipitate`)).toEqual({
      kind: 'contains',
      text: 'precipitate',
    })
    expect(comparison(`${KINASE}: Comment does not contain "top: conc; \\"x\\""`)).toEqual({
      kind: 'does not contain',
      text: 'top: conc; "x"',
    })
    expect(comparison(`${KINASE}: Comment = precipitate at top concentration`)).toEqual({
      kind: 'text equal',
      text: 'precipitate at top concentration',
    })
    expect(comparison(`${KINASE}: IC50 = "ND"`)).toEqual({ kind: 'text equal', text: 'ND' })
    expect(comparison(`${KINASE}: IC50 != "ND"`)).toEqual({ kind: 'text not equal', text: 'ND' })
    expect(comparison(`${KINASE}: IC50`)).toEqual({ kind: 'present' })
  })

  it('reads dates, booleans and readouts of no declared type', () => {
    expect(comparison('Not Tested Panel: Assay date >= 2024-01-01')).toEqual({
      kind: 'range',
      scale: 'date',
      lower: { value: Date.UTC(2024, 0, 1), inclusive: true },
      upper: null,
    })
    expect(comparison('Not Tested Panel: Passed QC = yes')).toEqual({
      kind: 'boolean',
      value: true,
    })
    expect(comparison('Not Tested Panel: Passed QC != TRUE')).toEqual({
      kind: 'boolean',
      value: false,
    })
    expect(comparison('Not Tested Panel: Flag = red')).toEqual({ kind: 'text equal', text: 'red' })
    expect(comparison('Not Tested Panel: Flag < 3')).toMatchObject({ kind: 'range' })
    expect(comparison('Not Tested Panel: pIC50 > 6.5')).toMatchObject({ lower: { value: 6.5 } })
  })

  it('ignores case and runs of spaces in names, and prefers the exact name', () => {
    expect(parsed('kinase ic50  (adp-glo): ic50 >= 10').readout?.definitionId).toBe(14)
    expect(parsed('hERG Patch: IC50 < 1').protocolId).toBe(5)
    expect(parsed('HERG patch: IC50 < 1').protocolId).toBe(6)
  })

  it('takes the longest readout name, so names may hold spaces, operators and keywords', () => {
    expect(parsed('Not Tested Panel: Ki < 5').readout?.definitionId).toBe(47)
    expect(parsed('Not Tested Panel: Ki (app) < 5').readout?.definitionId).toBe(48)
    expect(parsed('Not Tested Panel: Fraction from pool from 10 to 20')).toMatchObject({
      readout: {
        definitionId: 40,
        comparison: { lower: { value: 10 }, upper: { value: 20 } },
      },
    })
    expect(parsed('Not Tested Panel: Ratio <a/b> > 2').readout?.definitionId).toBe(49)
    expect(parsed('Not Tested Panel: "Ki (app)"<5').readout?.definitionId).toBe(48)
  })

  it('reads junctions, negation, aggregate scope and quoted protocol names', () => {
    expect(parsed(`not ${KINASE}`)).toMatchObject({ negated: true, protocolId: 1, readout: null })
    expect(parsed(`OR NOT ${KINASE}: IC50 > 10`)).toMatchObject({
      junction: 'OR',
      negated: true,
    })
    expect(parsed(`and ${KINASE}`)).toMatchObject({ junction: 'AND', negated: false })
    expect(parsed(`${KINASE}: aggregate IC50 < 1 uM`).readout?.scope).toBe('aggregate')
    expect(parsed('Not Tested Panel: Ki > 5')).toMatchObject({ negated: false, protocolId: 4 })
    expect(parsed('not Not Tested Panel: Ki > 5')).toMatchObject({ negated: true, protocolId: 4 })
    expect(parsed('"Not Tested Panel"')).toMatchObject({ negated: false, protocolId: 4 })
    expect(parsed('"Panel: CYP450": CYP3A4 IC50 < 5').protocolId).toBe(7)
  })

  it('reads run clauses, alone or after a protocol', () => {
    expect(parsed(`${KINASE}; run in the last 30 days`)).toMatchObject({
      protocolId: 1,
      runs: { kind: 'recent', days: 30 },
      readout: null,
    })
    expect(parsed(`${KINASE}: IC50 < 1 uM; run date from 2024-01-01 to 2024-03-31`).runs).toEqual({
      kind: 'dates',
      onOrAfter: '2024-01-01',
      before: '2024-04-01',
    })
    expect(parsed('run date after 2024-01-31')).toEqual({
      junction: 'AND',
      negated: false,
      protocolId: null,
      runs: { kind: 'dates', onOrAfter: '2024-02-01', before: null },
      readout: null,
    })
    expect(parsed('run date before 2024-04-01').runs).toEqual({
      kind: 'dates',
      onOrAfter: null,
      before: '2024-04-01',
    })
    expect(parsed('run date on 2024-02-29').runs).toEqual({
      kind: 'dates',
      onOrAfter: '2024-02-29',
      before: '2024-03-01',
    })
    expect(parsed('Run Date To 2024-12-31').runs).toEqual({
      kind: 'dates',
      onOrAfter: null,
      before: '2025-01-01',
    })
    expect(parsed('run date from 2024-05-01').runs).toMatchObject({ onOrAfter: '2024-05-01' })
    expect(parsed('runs in the last 1 day').runs).toEqual({ kind: 'recent', days: 1 })
    expect(parsed(`${KINASE}; run 123`).runs).toEqual({ kind: 'run', runId: 123 })
  })
})

describe('refusing criteria with a message that says what is wrong and what exists', () => {
  it('lists the protocols, closest first, for an unknown one', () => {
    const result = parseCriterion('Kinase IC50 (ADP Glo): IC50 < 1 uM', catalogue)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.message).toMatch(
      /^Unknown protocol "Kinase IC50 \(ADP Glo\)"\. Protocols, closest first: "Kinase IC50 \(ADP-Glo\)", /,
    )
    expect(new Set(result.error.suggestions)).toEqual(new Set(catalogue.map((entry) => entry.name)))
    expect(result.error.suggestions?.[0]).toBe(KINASE)
    const partial = parseCriterion('solubility: Solubility > 10', catalogue)
    expect(!partial.ok && partial.error.suggestions?.[0]).toBe('Kinetic Solubility (PBS pH 7.4)')
    expect(parseCriterion('Kinase', [])).toMatchObject({
      ok: false,
      error: { message: 'Unknown protocol "Kinase": there are no protocols' },
    })
  })

  it('lists the protocol’s readouts, closest first, for an unknown one', () => {
    expect(refused(`${KINASE}: IC05 < 1`)).toBe(
      `Protocol "${KINASE}" has no readout "IC05". Its readouts, closest first: "IC50", "Signal", "Comment", "% Inhibition", "Concentration"`,
    )
    expect(refused(`${KINASE}: aggregate pIC50 > 6`)).toContain('has no readout "pIC50"')
    expect(refused('Empty Protocol: IC50 < 1')).toBe(
      'Protocol "Empty Protocol" has no readout "IC50": it has no readouts',
    )
    expect(refused('Empty Protocol:')).toBe(
      'Expected a readout of "Empty Protocol" after the colon: it has no readouts',
    )
    expect(refused('Case Panel: ki < 5')).toBe(
      '"ki" names more than one readout of "Case Panel": write the name with its exact case, in quotes',
    )
    expect(parsed('Case Panel: KI < 5').readout?.definitionId).toBe(81)
    expect(parsed('Case Panel: "Ki" < 5').readout?.definitionId).toBe(80)
    expect(refused(`${KINASE}:`)).toBe(
      `Expected a readout of "${KINASE}" after the colon: its readouts are "Concentration", "% Inhibition", "Signal", "Comment", "IC50"`,
    )
  })

  it('refuses a non-numeric value for a numeric readout', () => {
    expect(refused(`${KINASE}: IC50 < abc`)).toBe(
      '"IC50" is a numeric readout: "abc" is not a number',
    )
    expect(refused(`${KINASE}: IC50 = ND`)).toBe(
      '"IC50" is a numeric readout: "ND" is not a number (to find cells that say "ND", quote it: IC50 = "ND")',
    )
    expect(refused(`${KINASE}: IC50 > "ND"`)).toBe('"IC50" needs a number after >: "ND" is not one')
    expect(refused(`${KINASE}: IC50 < 2024-01-01`)).toContain('"2024-01-01" is not a number')
    expect(refused(`${KINASE}: IC50 <`)).toBe('Expected a value after "IC50 <"')
    expect(refused(`${KINASE}: IC50 < 1e999`)).toBe(
      '"IC50" is a numeric readout: "1e999" is not a number',
    )
  })

  it('refuses a unit that cannot convert, naming both units', () => {
    expect(refused(`${KINASE}: IC50 < 3 kg`)).toBe(
      'Cannot compare "IC50" (kept in uM) with 3 kg: kg cannot be converted to uM: kg is a mass and uM a molar concentration',
    )
    expect(refused('Not Tested Panel: pIC50 > 1 uM')).toContain(
      'Vault Desk does not convert between logarithmic and molar values',
    )
    expect(refused('Not Tested Panel: Ki > 1 uM')).toBe(
      'Cannot compare "Ki" (no unit) with 1 uM: uM cannot be converted: the readout records no unit (give the value without a unit)',
    )
    expect(refused(`${KINASE}: Signal > 5 cps`)).toContain('cps cannot be converted to RLU')
  })

  it('refuses a range whose lower bound is above its upper bound, after conversion', () => {
    expect(refused(`${KINASE}: IC50 from 10 to 1`)).toBe(
      'from 10 to 1: the lower bound is above the upper bound (10 and 1 uM)',
    )
    expect(refused(`${KINASE}: IC50 from 10 uM to 1000 nM`)).toBe(
      'from 10 uM to 1000 nM: the lower bound is above the upper bound (10 and 1 uM)',
    )
    expect(refused(`${KINASE}: IC50 from 10`)).toBe(
      'Expected "from <low> to <high>" after "IC50", got "from 10"',
    )
    expect(refused('run date from 2024-05-01 to 2024-01-01')).toBe(
      'run date from 2024-05-01 to 2024-01-01: the start is after the end',
    )
  })

  it('refuses operators a readout’s type does not take', () => {
    expect(refused(`${KINASE}: Comment < 5`)).toBe(
      '"Comment" holds text: < compares numbers or dates; use =, !=, contains or does not contain',
    )
    expect(refused(`${KINASE}: Comment from a to b`)).toBe(
      '"Comment" holds text: from ... to compares numbers or dates',
    )
    expect(refused('Not Tested Panel: Passed QC > yes')).toBe(
      '"Passed QC" holds yes or no: > does not apply; use = or !=',
    )
    expect(refused('Not Tested Panel: Passed QC = maybe')).toBe(
      '"Passed QC" holds yes or no: "maybe" is neither',
    )
    expect(refused('Not Tested Panel: Assay date > soon')).toBe(
      '"Assay date" holds dates: "soon" is not a date (write 2024-03-05 or an ISO timestamp)',
    )
    expect(refused(`${KINASE}: Comment contains`)).toBe('Expected text after "contains"')
  })

  it('refuses malformed text clearly', () => {
    expect(refused('   ')).toBe(
      'The criterion is empty: write, for example, "Kinase IC50 (ADP-Glo): IC50 < 1 uM"',
    )
    expect(refused(`${KINASE}: IC50 about 5`)).toBe(
      'Expected an operator after "IC50", one of =, !=, <, >, <=, >=, contains, does not contain, or from ... to ... (a readout alone asks for a cell of it); got "about 5"',
    )
    expect(refused('"Kinase IC50 (ADP-Glo): IC50 < 1')).toBe(
      'A quoted name or value has no closing quote: "Kinase IC50 (ADP-Glo): IC50 < 1',
    )
    expect(refused(`"${KINASE}" extra: IC50 < 1`)).toBe(
      `Expected ":" and a readout, or ";" and a run clause, after "${KINASE}"; got "extra: IC50 < 1"`,
    )
    expect(refused(': IC50 < 1')).toBe('Expected a protocol name before ": IC50 < 1"')
    expect(refused('herg patch: IC50 < 1')).toBe(
      '"herg patch" could be any of the protocols "hERG Patch", "HERG patch": write the name with its exact case, in quotes',
    )
    expect(refused(`${KINASE}: Comment = "a" b`)).toBe('Unexpected "b" after the quoted value "a"')
    const long = `${KINASE}: Comment contains ${'x'.repeat(1_000_000)}`
    expect(refused(long)).toBe(
      `The criterion is ${long.length} characters long; at most 2000 are read`,
    )
    const unknown = `${'y'.repeat(1900)}: IC50 < 1`
    expect(refused(unknown)).toMatch(/^Unknown protocol "y{1900}"\. Protocols, closest first: /)
  })

  it('refuses run clauses it cannot read', () => {
    expect(refused(`${KINASE}; run sometime`)).toContain(
      'Cannot read the run clause "run sometime"',
    )
    expect(refused('run date from 2024-02-30')).toBe(
      '"2024-02-30" is not a day: write it as 2024-03-05',
    )
    expect(refused('run in the last -3 days')).toBe(
      'run in the last -3 days: the number of days must be a whole number from 0',
    )
    expect(refused(`${KINASE};`)).toBe(
      'Expected a run clause after ";" (for example "run in the last 30 days")',
    )
  })

  it('reports every criterion’s error in a list, with its position', () => {
    const result = parseCriteria(
      [`${KINASE}: IC50 < 1 uM`, 'Nothing: x > 1', `${KINASE}: IC50 < 3 kg`],
      catalogue,
    )
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.errors.map((error) => [error.index, error.text])).toEqual([
      [1, 'Nothing: x > 1'],
      [2, `${KINASE}: IC50 < 3 kg`],
    ])
    const fine = parseCriteria([`${KINASE}`, `or ${KINASE}: IC50 < 1`], catalogue)
    expect(fine.ok && fine.criteria.map((criterion) => criterion.junction)).toEqual(['AND', 'OR'])
  })
})

describe('formatting criteria', () => {
  const texts = [
    `${KINASE}: IC50 < 1 uM`,
    'GPCR Radioligand Displacement: IC50 < 1 uM',
    `${KINASE}: IC50 <= 300 nM`,
    `${KINASE}: IC50 = 5`,
    `${KINASE}: IC50 != 5`,
    `${KINASE}: IC50 >= 0.001`,
    `${KINASE}: IC50 from 100 nM to 1 uM`,
    `${KINASE}: IC50 = "ND"`,
    `${KINASE}: IC50 != "N\\"D\\\\"`,
    `${KINASE}: IC50`,
    `${KINASE}: aggregate IC50 > 30`,
    `${KINASE}: Comment contains precipitate`,
    `${KINASE}: Comment does not contain "a; b: c"`,
    `${KINASE}: Comment = ok`,
    `${KINASE}: Signal > 120000 RLU`,
    `${KINASE}: % Inhibition >= 50`,
    `or not ${KINASE}`,
    `not ${KINASE}; run in the last 30 days`,
    `${KINASE}: IC50 < 1; run date from 2024-01-01 to 2024-03-31`,
    `${KINASE}; run date on 2024-02-29`,
    `${KINASE}; run 42`,
    'run date after 2024-01-31',
    'run date before 2024-04-01',
    'not run date from 2024-05-01',
    'runs in the last 1 day',
    'Not Tested Panel: Ki (app) < 5',
    'Not Tested Panel: Fraction from pool from 10 to 20',
    'Not Tested Panel: Ratio <a/b> > 2',
    'Not Tested Panel: Assay date >= 2024-01-01',
    'Not Tested Panel: Assay date < 2024-01-01T12:30:00Z',
    'Not Tested Panel: Passed QC != yes',
    'Not Tested Panel: Flag = red',
    'Not Tested Panel: pIC50 from 6 to 8.5',
    '"Panel: CYP450": CYP3A4 IC50 < 5',
    'hERG Patch: IC50 < 1',
  ]

  it('writes text that parses back to the same criterion, and formats stably', () => {
    for (const text of texts) {
      const criterion = parsed(text)
      const formatted = formatCriterion(criterion, catalogue)
      expect(parsed(formatted), `${text} → ${formatted}`).toEqual(criterion)
      expect(formatCriterion(parsed(formatted), catalogue)).toBe(formatted)
    }
  })

  it('writes canonical text: units of the readout, quotes where the grammar needs them', () => {
    const format = (text: string) => formatCriterion(parsed(text), catalogue)
    expect(format(`${KINASE}: IC50 <= 300 nM`)).toBe(`${KINASE}: IC50 <= 0.3 uM`)
    expect(format('GPCR Radioligand Displacement: IC50 < 1 uM')).toBe(
      'GPCR Radioligand Displacement: IC50 < 1000 nM',
    )
    expect(format('not Not Tested Panel: Ki > 5')).toBe('not "Not Tested Panel": Ki > 5')
    expect(format('Not Tested Panel: Ratio <a/b> > 2')).toBe(
      '"Not Tested Panel": "Ratio <a/b>" > 2',
    )
    expect(format(`${KINASE}: Comment = ok`)).toBe(`${KINASE}: Comment = "ok"`)
    expect(format(`${KINASE}: IC50 from 1 to 1`)).toBe(`${KINASE}: IC50 = 1 uM`)
    expect(format(`${KINASE}: IC50 < 1; run date from 2024-01-01 to 2024-03-31`)).toBe(
      `${KINASE}: IC50 < 1 uM; run date from 2024-01-01 to 2024-03-31`,
    )
    expect(format('Not Tested Panel: Passed QC != yes')).toBe('"Not Tested Panel": Passed QC = no')
  })
})
