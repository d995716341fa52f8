import { describe, expect, it } from 'vitest'
import type {
  RegistrationField,
  RegistrationForm,
} from '../../../../src-common/registration/form.ts'
import {
  emptyDraft,
  problemsByMember,
  readFieldValue,
  readRequest,
  readStructure,
  type RegistrationDraft,
} from './registration-request.ts'

const field = (
  name: string,
  type: RegistrationField['type'],
  more: Partial<RegistrationField> = {},
) =>
  ({
    id: 1,
    name,
    type,
    required: false,
    choices: null,
    unique: false,
    ...more,
  }) as RegistrationField

const ethanolMolfile = [
  '',
  '     RDKit          2D',
  '',
  '  3  2  0  0  0  0  0  0  0  0999 V2000',
  '    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0',
  '    2.5981   -0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0',
  '  1  2  1  0',
  '  2  3  1  0',
  'M  END',
].join('\n')

describe('readStructure', () => {
  it('tells SMILES, CXSMILES and molfiles apart by their shape', () => {
    expect(readStructure('  CCO \n')).toEqual({
      ok: true,
      structure: { format: 'smiles', text: 'CCO' },
    })
    expect(readStructure('C[C@H](N)C(=O)O |&1:1|')).toEqual({
      ok: true,
      structure: { format: 'cxsmiles', text: 'C[C@H](N)C(=O)O |&1:1|' },
    })
    // A molfile keeps its header lines, the blank first one included.
    const molfile = readStructure(ethanolMolfile + '\n\n')
    expect(molfile).toEqual({
      ok: true,
      structure: { format: 'molfile', text: ethanolMolfile + '\n' },
    })
  })

  it('names what is wrong with text that is no structure', () => {
    expect(readStructure(' \n ')).toEqual({ ok: false, message: 'Draw or paste a structure.' })
    expect(readStructure('CCO\nCCN')).toMatchObject({ ok: false, message: /Several lines/ })
    const cut = ethanolMolfile.replace('M  END', '')
    expect(readStructure(cut)).toMatchObject({ ok: false, message: /no “M {2}END” line/ })
  })
})

describe('readFieldValue', () => {
  it('reads numbers strictly, refusing a decimal comma', () => {
    const purity = field('Purity (%)', 'Number')
    expect(readFieldValue(purity, ' 98.5 ')).toEqual({ ok: true, value: 98.5 })
    expect(readFieldValue(purity, '1e-3')).toEqual({ ok: true, value: 0.001 })
    expect(readFieldValue(purity, '98,5')).toMatchObject({ ok: false, message: /comma/ })
    expect(readFieldValue(purity, '98%')).toEqual({
      ok: false,
      message: 'must be a number; “98%” is not one',
    })
    expect(readFieldValue(purity, 'Infinity')).toMatchObject({ ok: false })
  })

  it('reads calendar dates and refuses days that do not exist', () => {
    const made = field('Synthesis date', 'Date')
    expect(readFieldValue(made, '2026-02-28')).toEqual({ ok: true, value: '2026-02-28' })
    expect(readFieldValue(made, '2026-02-30')).toMatchObject({ ok: false, message: /not one/ })
    expect(readFieldValue(made, '28/02/2026')).toMatchObject({ ok: false })
  })

  it('keeps pick list values to the list', () => {
    const colour = field('Appearance', 'Pick List', { choices: ['White solid', 'Oil'] })
    expect(readFieldValue(colour, 'Oil')).toEqual({ ok: true, value: 'Oil' })
    expect(readFieldValue(colour, 'Blue')).toMatchObject({ ok: false, message: /one of its list/ })
  })

  it('leaves out empty optional fields and requires required ones', () => {
    expect(readFieldValue(field('Notes', 'Text'), '  ')).toEqual({ ok: true, value: null })
    expect(readFieldValue(field('Chemist', 'Text', { required: true }), '')).toEqual({
      ok: false,
      message: 'is required',
    })
  })
})

const plainForm: RegistrationForm = {
  vaultKind: 'plain',
  registrationSystem: null,
  projects: [
    { id: 1, name: 'Kinase Inhibitors' },
    { id: 2, name: 'GPCR Ligands' },
  ],
  moleculeFields: [field('Series', 'Text')],
  batchFields: [field('Purity (%)', 'Number', { required: true })],
  salts: ['HCl'],
  solvents: [],
}

const registrationForm: RegistrationForm = {
  ...plainForm,
  vaultKind: 'registration',
  registrationSystem: { name: 'AI numbers', prefix: 'AI-' },
}

const target = { connectionId: 'c1', vaultId: 7 }

function draft(changes: Partial<RegistrationDraft>): RegistrationDraft {
  return { ...emptyDraft(), structure: 'CCO', projects: [1], ...changes }
}

describe('readRequest', () => {
  it('makes a molecule without a batch in a vault without a registration system', () => {
    const reading = readRequest(
      target,
      plainForm,
      draft({ name: ' Ethanol ', synonyms: 'EtOH\n\n alcohol ', moleculeFields: { Series: 'A' } }),
      false,
    )
    expect(reading).toEqual({
      ok: true,
      request: {
        connectionId: 'c1',
        vaultId: 7,
        structure: { format: 'smiles', text: 'CCO' },
        name: 'Ethanol',
        synonyms: ['EtOH', 'alcohol'],
        projects: [1],
        moleculeFields: { Series: 'A' },
        duplicate: { kind: 'none' },
      },
    })
  })

  it('always makes a batch in a registration vault, and for an existing molecule', () => {
    const registered = readRequest(
      target,
      registrationForm,
      draft({
        batchFields: { 'Purity (%)': '99' },
        saltName: 'HCl',
        name: 'Mine',
        description: 'Crude',
        synonyms: 'X-1',
        moleculeFields: { Series: 'A' },
      }),
      false,
    )
    expect(registered).toMatchObject({
      ok: true,
      request: { batch: { fields: { 'Purity (%)': 99 }, saltName: 'HCl' } },
    })
    // The vault names the molecule and makes it from the structure alone.
    expect(registered.ok && registered.request).toMatchObject({ moleculeFields: {} })
    for (const member of ['name', 'description', 'synonyms']) {
      expect(registered.ok && member in registered.request).toBe(false)
    }

    const existing = readRequest(
      target,
      plainForm,
      draft({
        duplicate: { kind: 'existing', moleculeId: 12 },
        batchFields: { 'Purity (%)': '95' },
      }),
      true,
    )
    expect(existing).toMatchObject({
      ok: true,
      request: {
        duplicate: { kind: 'existing', moleculeId: 12 },
        batch: { fields: { 'Purity (%)': 95 } },
      },
    })
  })

  it('names every problem by its member', () => {
    const reading = readRequest(
      target,
      registrationForm,
      draft({ structure: '', projects: [], batchFields: { 'Purity (%)': 'high' } }),
      true,
    )
    expect(reading.ok).toBe(false)
    const members = reading.ok ? [] : reading.problems.map((problem) => problem.member)
    expect(members).toEqual(['structure', 'projects', 'duplicate', 'batch.fields.Purity (%)'])
  })

  it('reads stoichiometry in registration vaults, an empty count being its usual value', () => {
    const batchFields = { 'Purity (%)': '99' }
    const counts = (core: string, salt: string, solvent = '') =>
      readRequest(
        target,
        registrationForm,
        draft({ batchFields, stoichiometry: { core, salt, solvent } }),
        false,
      )
    const none = counts('', '')
    expect(none.ok && none.request.batch).not.toHaveProperty('stoichiometry')
    expect(none.ok && none.request.batch).toBeTruthy()
    expect(counts('', '2')).toMatchObject({
      ok: true,
      request: { batch: { stoichiometry: { core: 1, salt: 2, solvent: 0 } } },
    })
    expect(counts('1', '0.5')).toMatchObject({
      ok: false,
      problems: [{ member: 'batch.stoichiometry.salt', message: /whole number/ }],
    })
    // A vault without a registration system takes none.
    const plain = readRequest(
      target,
      plainForm,
      draft({
        name: 'X',
        withBatch: true,
        batchFields,
        stoichiometry: { core: '1', salt: '1', solvent: '' },
      }),
      false,
    )
    expect(plain.ok && plain.request.batch).not.toHaveProperty('stoichiometry')
  })

  it('asks a name only where the vault does not number molecules itself', () => {
    const plain = readRequest(target, plainForm, draft({}), false)
    expect(plain).toMatchObject({ ok: false, problems: [{ member: 'name' }] })
  })

  it('refuses a project the person cannot reach', () => {
    const reading = readRequest(target, plainForm, draft({ name: 'X', projects: [99] }), false)
    expect(reading).toMatchObject({ ok: false, problems: [{ member: 'projects' }] })
  })
})

describe('problemsByMember', () => {
  it("says main's problems as sentences, with the field they are about", () => {
    const { byMember, others } = problemsByMember(
      [
        { member: 'batch.fields.Purity (%)', message: 'is required in this vault' },
        { member: 'duplicate.moleculeId', message: "molecule 9 is not in this vault's cache" },
        { member: 'structure', message: 'SMILES Parse Error: unclosed ring' },
      ],
      new Set(['batch.fields.Purity (%)', 'duplicate', 'structure']),
    )
    expect(others).toEqual([])
    expect(byMember.get('batch.fields.Purity (%)')).toBe('Purity (%) is required in this vault.')
    expect(byMember.get('duplicate')).toBe("Molecule 9 is not in this vault's cache.")
    expect(byMember.get('structure')).toBe('SMILES Parse Error: unclosed ring')
  })

  it('puts each problem beside its field and gathers the rest', () => {
    const { byMember, others } = problemsByMember(
      [
        { member: 'name', message: 'Taken.' },
        { member: 'name', message: 'Too long.' },
        { member: 'owner', message: 'Unknown.' },
      ],
      new Set(['name']),
    )
    expect(byMember.get('name')).toBe('Taken. Too long.')
    expect(others).toEqual([{ member: 'owner', message: 'Unknown.' }])
  })
})
