/**
 * Runs rdkit_reference.py with Debian's RDKit and collects its JSON lines. The benchmarks call it
 * before or after their own measurements, never during them, so the two never share the cores.
 */
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { progress } from '../report.ts'
import { moleculesFile } from './benchmark-data.ts'

const python = process.env.VAULT_DESK_NATIVE_PYTHON ?? '/usr/bin/python3'
const script = path.join(import.meta.dirname, 'rdkit_reference.py')

/** Null when the reference cannot run here; the reason is printed, and the benchmark says so. */
export function nativeRdkitVersion(): string | null {
  const probe = spawnSync(python, ['-c', 'from rdkit import rdBase; print(rdBase.rdkitVersion)'], {
    encoding: 'utf8',
  })
  if (probe.status === 0) return probe.stdout.trim()
  progress(
    `native reference unavailable: ${python} cannot import rdkit (${(probe.stderr || String(probe.error)).trim()}). ` +
      'Install Debian python3-rdkit (apt-get install python3-rdkit) for the comparison.',
  )
  return null
}

export type NativeDocument = Record<string, unknown> & { mode: string }

export async function runNativeReference(
  mode: 'build' | 'substructure' | 'similarity' | 'explain',
  options: { molecules?: number; sample?: number; queries?: string[]; top?: number },
): Promise<NativeDocument[]> {
  const args = [script, mode, '--molecules-file', moleculesFile]
  if (options.molecules !== undefined) args.push('--molecules', String(options.molecules))
  if (options.sample !== undefined) args.push('--sample', String(options.sample))
  if (options.top !== undefined) args.push('--top', String(options.top))
  if (options.queries) args.push('--queries', ...options.queries)
  const child = spawn(python, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  const documents: NativeDocument[] = []
  let pending = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines)
      if (line.trim() !== '') documents.push(JSON.parse(line) as NativeDocument)
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) throw new Error(`rdkit_reference.py ${mode} failed with exit code ${code}.`)
  return documents
}
