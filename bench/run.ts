/**
 * `npm run bench [-- FILTER...]`: runs every `bench/*.bench.ts` (or those whose name contains a
 * filter) one after another in its own Node process; their JSON lines pass through to stdout.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const benchDir = import.meta.dirname
const filters = process.argv.slice(2)
const files = fs
  .readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()

if (files.length === 0) {
  process.stderr.write(`No benchmark matches ${filters.join(', ')}\n`)
  process.exit(2)
}

let failed = 0
for (const file of files) {
  process.stderr.write(`[bench] ${file}\n`)
  const run = spawnSync(process.execPath, ['--expose-gc', path.join(benchDir, file)], {
    stdio: 'inherit',
  })
  if (run.status !== 0) {
    failed++
    process.stderr.write(`[bench] ${file} failed with ${run.status ?? run.signal}\n`)
  }
}
process.exit(failed === 0 ? 0 : 1)
