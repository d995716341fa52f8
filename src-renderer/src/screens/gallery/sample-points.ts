/**
 * Made-up molecules for the plots of the component gallery, as `results.points` answers them:
 * computed properties and two readouts (an IC50 in nM with qualified values outside its range,
 * and a percent inhibition that dips below zero), with the gaps real data has. The same on every
 * run, so the end-to-end tests can work out what the plots must show. Each molecule borrows the
 * structure of one of a few known drugs, for the tooltip's drawing.
 */
import type { PlotColumn } from '../../lib/plots/point-layout.ts'
import { random } from './sample-compounds.ts'

export const sampleStructures = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'CC(C)Cc1ccc(cc1)C(C)C(=O)O',
  'CN1C=NC2=C1C(=O)N(C(=O)N2C)C',
  'CC(=O)Nc1ccc(O)cc1',
  'COc1ccc2[nH]cc(CCN(C)C)c2c1',
  'Cc1ccc(cc1Nc1nccc(n1)-c1cccnc1)NC(=O)c1ccc(CN2CCN(C)CC2)cc1',
  'COc1cc2ncnc(Nc3ccc(F)c(Cl)c3)c2cc1OCCCN1CCOCC1',
  'CS(=O)(=O)CCNCc1ccc(o1)-c1ccc2ncnc(Nc3ccc(OCc4cccc(F)c4)c(Cl)c3)c2c1',
  'C=CC(=O)Nc1cc(Nc2nccc(n2)-c2cn(C)c3ccccc23)c(OC)cc1N(C)CCN(C)C',
  'CN(C)C/C=C/C(=O)Nc1cc2c(Nc3ccc(F)c(Cl)c3)ncnc2cc1O[C@H]1CCOC1',
  'O=C(c1ccc(F)cc1)C1CCN(CCn2c(=O)[nH]c3ccccc3c2=O)CC1',
  'Clc1ccc(cc1)C(c1ccccc1)N1CCN(CC1)CCOCC(=O)O',
  'CN1CCN(CC1)c1ccc2nc(-c3c(N)c4c(F)cccc4[nH]c3=O)[nH]c2c1',
  'OC(=O)c1cc(ccc1O)N=Nc1ccc(cc1)S(=O)(=O)Nc1ccccn1',
  'Nc1ncnc2c1c(-c1ccc(Oc3ccccc3)cc1)nn2[C@@H]1CCCN(C1)C(=O)C=C',
  'CC1=C(C(=O)Nc2ccccc2)C(c2ccccc2[N+](=O)[O-])C(C(=O)OC)=C(C)N1',
]

/** A column as `results.points` answers one: plain arrays. */
export interface SampleColumn extends PlotColumn {
  values: (number | null)[]
  modifiers?: (string | null)[]
}

export interface SamplePoints {
  ids: number[]
  /** Index into sampleStructures of each molecule's drawing. */
  structures: number[]
  molecularWeight: SampleColumn
  logP: SampleColumn
  topologicalPolarSurfaceArea: SampleColumn
  ic50: SampleColumn
  inhibition: SampleColumn
}

export function sampleName(id: number): string {
  return `VD-${String(id).padStart(6, '0')}`
}

/** The IC50 assay's range: values beyond it are reported as its bound, qualified. */
export const ic50Range = { low: 1, high: 30_000 }

export function samplePoints(count: number, seed = 11): SamplePoints {
  const next = random(seed)
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
  const ids: number[] = []
  const structures: number[] = []
  const weight: (number | null)[] = []
  const logP: (number | null)[] = []
  const polarSurface: (number | null)[] = []
  const ic50: (number | null)[] = []
  const ic50Modifiers: (string | null)[] = []
  const inhibition: (number | null)[] = []
  const round = (value: number, digits: number) => Number(value.toFixed(digits))
  for (let index = 0; index < count; index += 1) {
    ids.push(index + 1)
    structures.push(Math.floor(next() * sampleStructures.length))
    // A main series and a tighter cluster of a lead series, as a project's compounds gather.
    const lead = next() < 0.15
    const mass = lead ? 430 + normal() * 25 : 320 * Math.exp(normal() * 0.26)
    weight.push(next() < 0.004 ? null : round(mass, 2))
    logP.push(next() < 0.02 ? null : round(0.011 * (mass - 320) + 2.4 + normal() * 1.1, 2))
    polarSurface.push(next() < 0.01 ? null : round(25 + Math.abs(normal()) * 35 + mass * 0.06, 1))
    const potency = 10 ** ((lead ? 1.2 : 2.9) + normal() * 1.1)
    if (next() < 0.07) {
      ic50.push(null)
      ic50Modifiers.push(null)
    } else if (potency > ic50Range.high) {
      ic50.push(ic50Range.high)
      ic50Modifiers.push('>')
    } else if (potency < ic50Range.low) {
      ic50.push(ic50Range.low)
      ic50Modifiers.push('<')
    } else {
      ic50.push(Number(potency.toPrecision(3)))
      ic50Modifiers.push(null)
    }
    const inhibited = 100 / (1 + potency / 10_000) + normal() * 9
    inhibition.push(next() < 0.03 ? null : round(inhibited, 1))
  }
  return {
    ids,
    structures,
    molecularWeight: { label: 'Molecular weight', unit: 'g/mol', values: weight },
    logP: { label: 'cLogP', values: logP },
    topologicalPolarSurfaceArea: { label: 'TPSA', unit: 'Å²', values: polarSurface },
    ic50: {
      label: 'Kinase IC50',
      unit: 'nM',
      values: ic50,
      modifiers: ic50Modifiers,
      scale: 'log',
    },
    inhibition: { label: 'Inhibition at 10 µM', unit: '%', values: inhibition },
  }
}

/** The first `count` molecules of a sample (the same as samplePoints(count) would make). */
export function firstPoints(sample: SamplePoints, count: number): SamplePoints {
  const cut = (column: SampleColumn): SampleColumn => ({
    ...column,
    values: column.values.slice(0, count),
    ...(column.modifiers ? { modifiers: column.modifiers.slice(0, count) } : {}),
  })
  return {
    ids: sample.ids.slice(0, count),
    structures: sample.structures.slice(0, count),
    molecularWeight: cut(sample.molecularWeight),
    logP: cut(sample.logP),
    topologicalPolarSurfaceArea: cut(sample.topologicalPolarSurfaceArea),
    ic50: cut(sample.ic50),
    inhibition: cut(sample.inhibition),
  }
}
