/**
 * The molecules and queries of the chemistry benchmarks, read exactly as rdkit_reference.py reads
 * them, so that both sides search the same structures with the same queries. Molecule ids are the
 * 0-based row numbers of chembl_250k.csv.gz.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

export const dataDir = process.env.VAULT_DESK_BENCH_DATA ?? '/work/shared/data'
export const moleculesFile = path.join(dataDir, 'chembl_250k.csv.gz')

export const substructureQueryFiles = [
  path.join(dataDir, 'zinc.frags.500.q.smi'),
  path.join(dataDir, 'zinc.leads.500.q.smi'),
  path.join(dataDir, 'fragqueries.q.txt'),
]

export const similarityQueryFile = path.join(dataDir, 'zinc.leads.500.q.smi')

/** CHEM_BENCH_MOLECULES picks a prefix of the data set (a random sample of it) for quicker runs. */
export function benchmarkMoleculeCount(): number {
  const count = Number(process.env.CHEM_BENCH_MOLECULES ?? 250_000)
  if (!Number.isInteger(count) || count < 1 || count > 250_000) {
    throw new Error(`CHEM_BENCH_MOLECULES must be a whole number from 1 to 250000, not ${count}.`)
  }
  return count
}

export function requireDataFiles(): void {
  for (const file of [moleculesFile, ...substructureQueryFiles]) {
    if (!fs.existsSync(file)) {
      throw new Error(`Benchmark data missing: ${file} (set VAULT_DESK_BENCH_DATA to its folder).`)
    }
  }
}

export interface BenchmarkMolecule {
  id: number
  smiles: string
}

export function readMolecules(count: number): BenchmarkMolecule[] {
  const text = zlib.gunzipSync(fs.readFileSync(moleculesFile)).toString('utf8')
  const lines = text.split('\n')
  const header = parseCsvLine(lines[0]!)
  const smilesColumn = header.indexOf('smiles')
  if (smilesColumn < 0) throw new Error(`${moleculesFile} has no smiles column.`)
  const molecules: BenchmarkMolecule[] = []
  for (let line = 1; line < lines.length && molecules.length < count; line++) {
    if (lines[line]!.trim() === '') continue
    molecules.push({ id: molecules.length, smiles: parseCsvLine(lines[line]!)[smilesColumn]! })
  }
  return molecules
}

/** The first whitespace-separated word of each non-empty line, as the reference reads queries. */
export function readQueries(file: string): string[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/)[0]!)
}

/** RFC 4180 fields: quoted fields may hold commas and doubled quotes. */
function parseCsvLine(line: string): string[] {
  const fields: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        field += '"'
        i++
      } else if (char === '"') {
        quoted = false
      } else {
        field += char
      }
    } else if (char === '"') {
      quoted = true
    } else if (char === ',') {
      fields.push(field)
      field = ''
    } else if (char !== '\r') {
      field += char
    }
  }
  fields.push(field)
  return fields
}
