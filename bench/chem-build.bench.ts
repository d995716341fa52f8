/**
 * Building the structure index from scratch with both cores (goal: under 3 minutes for 250k
 * molecules) until every molecule is searchable, and until the InChIKeys and properties (which a
 * vault usually gives, and this data set does not) are computed too; then synchronizing again:
 * unchanged molecules are not recomputed, changed ones are.
 * The reference is Debian's RDKit computing the same per molecule on one core, timed on a sample
 * in the same run and scaled to the data set and the cores. Each stage is also timed on that
 * sample on one core for both toolkits, to show where the time goes.
 */
import os from 'node:os'
import { moleculeGraphFromJson } from '../src-main/chem/molecule-graph.ts'
import { moleculeGraphFromPickle } from '../src-main/chem/pickle-graph.ts'
import { RDKitToolkit } from '../src-main/chem/rdkit-toolkit.ts'
import { morganFingerprintOf } from '../src-main/chem/structure-computation.ts'
import { inchiKeyOf } from '../src-main/chem/structure-details.ts'
import { progress, report } from './report.ts'
import {
  benchmarkMoleculeCount,
  readMolecules,
  requireDataFiles,
  type BenchmarkMolecule,
} from './native/benchmark-data.ts'
import { openBenchmarkIndex, synchronizeBenchmarkIndex } from './native/benchmark-index.ts'
import { nativeRdkitVersion, runNativeReference } from './native/native-reference.ts'

const buildGoalSeconds = 180
const changedMolecules = 1000

requireDataFiles()
const moleculeCount = benchmarkMoleculeCount()
const molecules = readMolecules(moleculeCount)
const cores = Math.min(2, os.availableParallelism())

const stageSample = Math.min(5000, moleculeCount)
let nativeSeconds = Number.NaN
let nativeNote = 'native reference unavailable'
let nativeStagesUs: Record<string, number> = {}
const nativeVersion = nativeRdkitVersion()
if (nativeVersion) {
  progress(`native RDKit ${nativeVersion}: timing ${stageSample} molecules`)
  const [build] = await runNativeReference('build', { sample: stageSample })
  const perMoleculeUs = build!.totalPerMoleculeUs as number
  nativeStagesUs = build!.perMoleculeUs as Record<string, number>
  nativeSeconds = (perMoleculeUs * moleculeCount) / 1e6 / cores
  nativeNote =
    `Debian RDKit ${nativeVersion}: ${perMoleculeUs.toFixed(0)} µs per molecule on one core ` +
    `(sample of ${stageSample}; ${build!.inchiAvailable ? 'with' : 'without'} InChI), ` +
    `scaled to ${moleculeCount} molecules on ${cores} cores`
}

progress(`timing each stage on ${stageSample} molecules with RDKit WebAssembly, one core`)
const stagesUs = await timeStages(molecules.slice(0, stageSample))
report({
  name: 'chem.index.stage-costs',
  value: Object.values(stagesUs).reduce((sum, us) => sum + us, 0),
  unit: 'µs per molecule, one core',
  reference: `Debian RDKit ${nativeVersion ?? '(unavailable)'}, same stages and molecules (properties: only those needed; no InChI)`,
  referenceValue: Object.values(nativeStagesUs).reduce((sum, us) => sum + us, 0),
  ratio:
    Object.values(stagesUs).reduce((sum, us) => sum + us, 0) /
    Object.values(nativeStagesUs).reduce((sum, us) => sum + us, 0),
  stagesUs,
  nativeStagesUs,
})

progress(`building the structure index of ${moleculeCount} molecules from scratch`)
const index = await openBenchmarkIndex(moleculeCount, { fresh: true })
const built = await synchronizeBenchmarkIndex(index, molecules)
const buildSeconds = built.searchableSeconds
const scaledGoal = (buildGoalSeconds * moleculeCount) / 250_000
report({
  name: 'chem.index.build',
  value: buildSeconds,
  unit: 's',
  reference: nativeNote,
  referenceValue: nativeSeconds,
  ratio: buildSeconds / nativeSeconds,
  goal: `every molecule searchable (substructure, similarity, exact) in under ${scaledGoal.toFixed(0)} s for ${moleculeCount} molecules with both cores (180 s per 250k)`,
  met: buildSeconds < scaledGoal,
  molecules: moleculeCount,
  workers: index.pool.size,
  computed: built.computed,
  unparseable: built.unparseable,
  perMoleculeMsPerWorker: (buildSeconds * 1000 * index.pool.size) / moleculeCount,
})
report({
  name: 'chem.index.build-with-details',
  value: built.completeSeconds,
  unit: 's',
  reference: nativeNote,
  referenceValue: nativeSeconds,
  ratio: built.completeSeconds / nativeSeconds,
  note: 'InChIKeys and RDKit descriptors for every molecule, computed after it is searchable; vaults usually give them, and then this pass has nothing to do',
  molecules: moleculeCount,
  detailsSeconds: built.completeSeconds - buildSeconds,
})

progress('synchronizing the same molecules again')
const resyncStarted = performance.now()
const resynced = await synchronizeBenchmarkIndex(index, molecules)
const resyncSeconds = (performance.now() - resyncStarted) / 1000
report({
  name: 'chem.index.resync-unchanged',
  value: resyncSeconds,
  unit: 's',
  reference: 'building from scratch in this run',
  referenceValue: buildSeconds,
  ratio: resyncSeconds / buildSeconds,
  goal: 'no molecule recomputed when nothing changed',
  met: resynced.computed === 0 && resynced.unchanged === moleculeCount,
  computed: resynced.computed,
  unchanged: resynced.unchanged,
})

const changedCount = Math.min(changedMolecules, moleculeCount)
const changed = molecules.map((molecule, position) =>
  position < changedCount ? { ...molecule, smiles: `${molecule.smiles}.O` } : molecule,
)
progress(`changing ${changedCount} structures (adding a water) and synchronizing`)
const changeStarted = performance.now()
const afterChange = await synchronizeBenchmarkIndex(index, changed)
const changeSeconds = (performance.now() - changeStarted) / 1000
report({
  name: 'chem.index.resync-changed',
  value: changeSeconds,
  unit: 's',
  reference: 'building from scratch in this run',
  referenceValue: buildSeconds,
  ratio: changeSeconds / buildSeconds,
  goal: `exactly the ${changedCount} changed molecules recomputed`,
  met: afterChange.computed === changedCount,
  computed: afterChange.computed,
})
progress('restoring the changed structures')
await synchronizeBenchmarkIndex(index, molecules)
await index.close()

/** The stages of structure-computation.ts, one at a time, in this thread (a measurement only). */
async function timeStages(sample: readonly BenchmarkMolecule[]): Promise<Record<string, number>> {
  const rdkit = await RDKitToolkit.load()
  const totals: Record<string, number> = {}
  const time = <T>(stage: string, work: () => T): T => {
    const begun = performance.now()
    const result = work()
    totals[stage] = (totals[stage] ?? 0) + (performance.now() - begun) * 1000
    return result
  }
  for (const { smiles } of sample) {
    const parsed = time('parse', () => rdkit.parseMolecule(smiles))
    if (!parsed.ok) continue
    const mol = parsed.value
    time('canonical', () => mol.get_smiles())
    time('inchikey', () => inchiKeyOf(rdkit, mol))
    time('pattern', () => mol.get_pattern_fp_as_uint8array())
    time('morgan', () => morganFingerprintOf(mol))
    const pickle = time('pickle', () => mol.get_as_uint8array() as Uint8Array)
    time('graph', () => moleculeGraphFromPickle(pickle) ?? moleculeGraphFromJson(mol.get_json()))
    time('properties', () => JSON.parse(mol.get_descriptors()))
    mol.delete()
  }
  return Object.fromEntries(
    Object.entries(totals).map(([stage, us]) => [stage, us / sample.length]),
  )
}
