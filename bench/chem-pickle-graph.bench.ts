/**
 * The molecule graph read from RDKit's pickle (pickle-graph.ts) against the graph read from
 * RDKit's JSON (molecule-graph.ts), on every molecule of the benchmark set, every substructure
 * query and the ChEMBL stereo set. The pickle reader must answer the JSON's graph or null, never
 * another graph (the run fails if it does), and should rarely answer null where the JSON has a
 * graph (goal: under 0.5%). Both ways are timed on the same molecules in the same run, the pickle
 * being already in hand, as it is when the index is built.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { moleculeGraphFromJson } from '../src-main/chem/molecule-graph.ts'
import { moleculeGraphFromPickle } from '../src-main/chem/pickle-graph.ts'
import { RDKitToolkit, type Mol } from '../src-main/chem/rdkit-toolkit.ts'
import { progress, report } from './report.ts'
import {
  benchmarkMoleculeCount,
  dataDir,
  readMolecules,
  readQueries,
  requireDataFiles,
  substructureQueryFiles,
} from './native/benchmark-data.ts'

const batchSize = 500
const largestFallbackShare = 0.005
const listedMolecules = 20
const stereoFile = path.join(dataDir, 'chembl_20_chiral.smi.gz')

interface Tally {
  compared: number
  /** Both readers give the same graph. */
  identical: number
  /** Neither gives a graph (the molecule has none: too large, dative bonds, ...). */
  bothNull: number
  /** The pickle reader cannot tell, though the JSON gives a graph: the caller falls back. */
  fallback: number
  different: number
  unparseable: number
}

requireDataFiles()
const rdkit = await RDKitToolkit.load()
const sets: [string, string[]][] = [
  ['chembl_250k', readMolecules(benchmarkMoleculeCount()).map((molecule) => molecule.smiles)],
  ...substructureQueryFiles.map((file): [string, string[]] => [
    path.basename(file),
    readQueries(file),
  ]),
]
if (fs.existsSync(stereoFile)) {
  const lines = zlib.gunzipSync(fs.readFileSync(stereoFile)).toString('utf8').split('\n')
  sets.push([
    path.basename(stereoFile),
    lines.filter((line) => line.trim() !== '').map((line) => line.trim().split(/\s+/)[0]!),
  ])
}

const total = newTally()
const tallies = new Map<string, Tally>()
const fallbacks: string[] = []
const withoutGraph: string[] = []
const differences: string[] = []
let jsonMs = 0
let pickleMs = 0
let timedBatches = 0
for (const [name, structures] of sets) {
  progress(`${structures.length} structures from ${name}`)
  const tally = newTally()
  tallies.set(name, tally)
  for (let start = 0; start < structures.length; start += batchSize) {
    const batch = structures.slice(start, start + batchSize)
    const mols: Mol[] = []
    const texts: string[] = []
    for (const text of batch) {
      const parsed = rdkit.parseMolecule(text)
      if (!parsed.ok) {
        tally.unparseable++
        continue
      }
      mols.push(parsed.value)
      texts.push(text)
    }
    const pickles = mols.map((mol) => mol.get_as_uint8array() as Uint8Array)
    // Which way runs first alternates, so that neither always finds the caches warmed by the other.
    const fromJson = () => mols.map((mol) => moleculeGraphFromJson(mol.get_json()))
    const fromPickle = () => pickles.map((pickle) => moleculeGraphFromPickle(pickle))
    let jsonGraphs: (Uint8Array | null)[]
    let pickleGraphs: (Uint8Array | null)[]
    if (timedBatches++ % 2 === 0) {
      ;[jsonGraphs, jsonMs] = timed(fromJson, jsonMs)
      ;[pickleGraphs, pickleMs] = timed(fromPickle, pickleMs)
    } else {
      ;[pickleGraphs, pickleMs] = timed(fromPickle, pickleMs)
      ;[jsonGraphs, jsonMs] = timed(fromJson, jsonMs)
    }
    for (const [index, jsonGraph] of jsonGraphs.entries()) {
      const pickleGraph = pickleGraphs[index]!
      tally.compared++
      if (pickleGraph === null) {
        if (jsonGraph === null) {
          tally.bothNull++
          if (withoutGraph.length < listedMolecules) withoutGraph.push(`${name}: ${texts[index]}`)
        } else {
          tally.fallback++
          if (fallbacks.length < listedMolecules) fallbacks.push(`${name}: ${texts[index]}`)
        }
      } else if (jsonGraph !== null && sameBytes(jsonGraph, pickleGraph)) {
        tally.identical++
      } else {
        tally.different++
        differences.push(`${name}: ${texts[index]}`)
      }
    }
    for (const mol of mols) mol.delete()
  }
  for (const key of Object.keys(total) as (keyof Tally)[]) total[key] += tally[key]
}

for (const text of withoutGraph) progress(`no graph either way: ${text}`)
for (const fallback of fallbacks) progress(`null where the JSON has a graph: ${fallback}`)
for (const difference of differences) progress(`DIFFERENT graph: ${difference}`)

const compared = `${total.compared} molecules compared (${[...tallies.keys()].join(', ')})`
report({
  name: 'chem.pickle-graph.different',
  value: total.different,
  unit: 'molecules',
  reference: compared,
  referenceValue: total.compared,
  ratio: total.different / total.compared,
  goal: 'no molecule with a graph other than the JSON one',
  met: total.different === 0,
  identical: total.identical,
  bothNull: total.bothNull,
  fallback: total.fallback,
  unparseable: total.unparseable,
  sets: Object.fromEntries(tallies),
})
report({
  name: 'chem.pickle-graph.fallback',
  value: total.fallback,
  unit: 'molecules',
  reference: compared,
  referenceValue: total.compared,
  ratio: total.fallback / total.compared,
  goal: `null where the JSON has a graph for under ${largestFallbackShare * 100}% of molecules`,
  met: total.fallback / total.compared < largestFallbackShare,
})
const jsonUs = (jsonMs * 1000) / total.compared
const pickleUs = (pickleMs * 1000) / total.compared
report({
  name: 'chem.pickle-graph.time',
  value: pickleUs,
  unit: 'µs per molecule',
  reference: `get_json() + moleculeGraphFromJson on the same molecules in this run (RDKit ${rdkit.version})`,
  referenceValue: jsonUs,
  ratio: pickleUs / jsonUs,
})
process.exitCode = total.different === 0 ? 0 : 1

function newTally(): Tally {
  return { compared: 0, identical: 0, bothNull: 0, fallback: 0, different: 0, unparseable: 0 }
}

function timed<T>(work: () => T, elapsedMs: number): [T, number] {
  const started = performance.now()
  const result = work()
  return [result, elapsedMs + performance.now() - started]
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index])
}
