/**
 * The independent readers of exported files (export_readers.py beside this file: Python's csv
 * module, RDKit's SD reader, openpyxl) under Debian's python3. Suites that need them skip loudly
 * without them, and fail under VAULT_DESK_REQUIRE_ALL=1.
 */
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { requirement } from './environment.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const script = path.join(import.meta.dirname, 'export_readers.py')

function importable(module: string): boolean {
  return spawnSync(python, ['-c', `import ${module}`], { encoding: 'utf8' }).status === 0
}

/** Whether RDKit and openpyxl can read back exports here (a loud skip, or a failure in CI). */
export function exportReadersHere(): boolean {
  return requirement(
    importable('rdkit') && importable('openpyxl'),
    `Debian's RDKit and openpyxl (${python} with python3-rdkit and python3-openpyxl)`,
  )
}

export interface SdRecord {
  title: string
  atoms: number
  smiles: string | null
  properties: Record<string, string | number>
}

export interface XlsxSheet {
  title: string
  frozen: string | null
  bold: boolean[]
  rows: (string | number | boolean | null | { date: string })[][]
}

export function readCsv(file: string): string[][] {
  return run(['csv', file]) as string[][]
}

/** Every record of an SD file as RDKit reads it (null where it could not). */
export function readSdf(file: string): (SdRecord | null)[] {
  return run(['sdf', file]) as (SdRecord | null)[]
}

export function readXlsx(file: string): XlsxSheet[] {
  return run(['xlsx', file]) as XlsxSheet[]
}

/** RDKit's canonical SMILES of each (null where it cannot read one). */
export function canonicalSmiles(smiles: readonly string[]): (string | null)[] {
  return run(['canonical'], JSON.stringify(smiles)) as (string | null)[]
}

function run(args: string[], input?: string): unknown {
  const answer = spawnSync(python, [script, ...args], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    ...(input !== undefined ? { input } : {}),
  })
  if (answer.status !== 0) {
    throw new Error(`export_readers.py ${args[0]} failed: ${answer.stderr || String(answer.error)}`)
  }
  return JSON.parse(answer.stdout)
}
