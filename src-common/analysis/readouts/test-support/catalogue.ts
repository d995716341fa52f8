import type { Catalogue, ReadoutDefinitionEntry } from '../catalogue.ts'
import type { ValueType } from '../readout-value.ts'

function readout(
  id: number,
  name: string,
  valueType: ValueType,
  unit: string | null = null,
  aggregation: string | null = null,
): ReadoutDefinitionEntry {
  return { id, name, valueType, unit, aggregation }
}

/** Protocols shaped like the simulator's demo vault, plus names that test the grammar's edges. */
export const catalogue: Catalogue = [
  {
    id: 1,
    name: 'Kinase IC50 (ADP-Glo)',
    readouts: [
      readout(10, 'Concentration', 'number', 'uM', 'arithmetic mean'),
      readout(11, '% Inhibition', 'number', '%', 'arithmetic mean'),
      readout(12, 'Signal', 'number', 'RLU', 'arithmetic mean'),
      readout(13, 'Comment', 'text'),
      readout(14, 'IC50', 'number', 'uM', 'geometric mean'),
    ],
  },
  {
    id: 2,
    name: 'GPCR Radioligand Displacement',
    readouts: [
      readout(20, 'Concentration', 'number', 'nM'),
      readout(21, '% Inhibition', 'number', '%'),
      readout(24, 'IC50', 'number', 'nM', 'geometric mean'),
    ],
  },
  {
    id: 3,
    name: 'Kinetic Solubility (PBS pH 7.4)',
    readouts: [readout(30, 'Solubility', 'number', 'uM'), readout(31, 'Method', 'text')],
  },
  {
    id: 4,
    name: 'Not Tested Panel',
    readouts: [
      readout(40, 'Fraction from pool', 'number', '%'),
      readout(41, 'pIC50', 'number', 'pIC50'),
      readout(42, 'Assay date', 'date'),
      readout(43, 'Passed QC', 'boolean'),
      readout(44, 'Flag', 'any'),
      readout(47, 'Ki', 'number'),
      readout(48, 'Ki (app)', 'number'),
      readout(49, 'Ratio <a/b>', 'number'),
    ],
  },
  { id: 5, name: 'hERG Patch', readouts: [readout(50, 'IC50', 'number', 'uM')] },
  { id: 6, name: 'HERG patch', readouts: [readout(60, 'IC50', 'number', 'uM')] },
  { id: 7, name: 'Panel: CYP450', readouts: [readout(70, 'CYP3A4 IC50', 'number', 'uM')] },
  {
    id: 8,
    name: 'Case Panel',
    readouts: [readout(80, 'Ki', 'number'), readout(81, 'KI', 'number')],
  },
  { id: 9, name: 'Empty Protocol', readouts: [] },
]
