/**
 * Global setup of the unit and e2e runs: a folder for this run's demo snapshot (made on first use,
 * by demo-snapshot.ts), removed when the run ends.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'

export default function setup(project: TestProject): () => void {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-demo-snapshot-'))
  project.provide('demoSnapshotFolder', folder)
  return () => fs.rmSync(folder, { recursive: true, force: true })
}
