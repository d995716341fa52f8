/**
 * An SD file of molecules whose records carry their molfile (as the vault API gives it), read
 * back by Debian's RDKit: each structure as written (stereo and charges kept), named by the
 * molecule, with the list's columns as properties (the batch count and projects the cache keeps
 * beside each record). A molecule without a molfile of its own is drawn from its SMILES, even
 * when one of its batches carries a `molfile` member, and pages of any size give the same file.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import { BrowseService } from '../../src-main/services/browse-service.ts'
import { LocalChemService } from '../../src-main/services/chem-service.ts'
import type { ConnectionRuntimes } from '../../src-main/services/connection-runtimes.ts'
import { ExportService } from '../../src-main/services/export-service.ts'
import { ResultsService } from '../../src-main/services/results-service.ts'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { canonicalSmiles, exportReadersHere, readSdf } from '../support/export-readers.ts'

const readersHere = exportReadersHere()
const smiles = [
  'CC(=O)Oc1ccccc1C(=O)O',
  'C[C@H](N)C(=O)O',
  'C[C@@H](N)C(=O)O',
  'F/C=C/F',
  'F/C=C\\F',
  'C[N+](C)(C)C.[Cl-]',
  'c1ccc2[nH]ccc2c1',
  'O=C([O-])c1ccccc1.[Na+]',
  'CC(C)Cc1ccc(cc1)[C@@H](C)C(=O)O',
  'Cn1cnc2c1c(=O)n(C)c(=O)n2C',
  'N#Cc1ccc(Br)cc1',
  'OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O',
]

let folder: string
let cache: VaultCache
let chem: LocalChemService
let exports: (pageSize: number) => ExportService
const records: Record<string, unknown>[] = []

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-export-molfiles-'))
  const pool = new ChemWorkerPool({ size: 1 })
  let molblocks: ({ molblock: string } | { problem: string })[]
  try {
    molblocks = await pool.run({ kind: 'writeMolblocks', structures: smiles })
  } finally {
    await pool.close()
  }
  smiles.forEach((text, index) => {
    const answer = molblocks[index]!
    if (!('molblock' in answer)) throw new Error(`RDKit could not draw ${text}: ${answer.problem}`)
    const ownMolfile = index % 4 !== 3
    records.push({
      id: index + 1,
      name: `Molecule ${String(index + 1).padStart(2, '0')} "quoted"`,
      smiles: text,
      ...(ownMolfile ? { molfile: answer.molblock.replace(/\n/g, index % 2 ? '\r\n' : '\n') } : {}),
      projects: index % 3 === 0 ? [] : [{ id: index, name: `Project ${index}` }],
      // A batch's own `molfile` member (another structure) is not its molecule's.
      batches: Array.from({ length: index % 3 }, (_, batch) => ({
        id: 100 * (index + 1) + batch,
        molfile: ownMolfile ? undefined : (molblocks[0] as { molblock: string }).molblock,
        molecule_fields: { molfile: 'not a structure' },
      })),
    })
  })
  const { cache: opened } = VaultCache.open(path.join(folder, 'cache.db'))
  cache = opened
  cache.replaceVaults([{ id: 1, name: 'Lab' }])
  cache.applyPage('molecules', 1, records)
  const runtimes = { get: () => ({ cache }), opened: () => [] } as unknown as ConnectionRuntimes
  const events = new EventBus()
  chem = new LocalChemService({ runtimes, events, log: silentLogger })
  const browse = new BrowseService(runtimes, undefined, chem)
  const results = new ResultsService(runtimes)
  exports = (pageSize) =>
    new ExportService({ browse, results, chem, events, log: silentLogger, pageSize })
}, 120_000)

afterAll(async () => {
  await chem?.close()
  await cache?.close()
  if (folder) fs.rmSync(folder, { recursive: true, force: true })
})

describe.runIf(readersHere)('an SD file of molecules with their molfiles', () => {
  it('is read back by RDKit with each structure, its name and the list as properties', async () => {
    const expected = canonicalSmiles(smiles)
    const byName = [...records].sort((a, b) => String(a.name).localeCompare(String(b.name)))
    const files: string[] = []
    for (const pageSize of [1000, 5]) {
      const file = path.join(folder, `molecules-${pageSize}.sdf`)
      const summary = await exports(pageSize).toFile(
        {
          connectionId: 'lab',
          vaultId: 1,
          question: { kind: 'molecules' },
          format: 'sdf',
          columns: 'view',
        },
        file,
      )
      expect(summary).toMatchObject({ records: smiles.length, withoutStructure: 0 })
      const read = readSdf(file)
      expect(read).toHaveLength(smiles.length)
      read.forEach((molecule, index) => {
        const record = byName[index]!
        const at = Number(record.id) - 1
        expect(molecule, String(record.name)).not.toBeNull()
        expect(molecule!.title).toBe(record.name)
        expect(molecule!.smiles, String(record.name)).toBe(expected[at])
        expect(molecule!.properties.ID).toBe(record.id)
        expect(molecule!.properties.Batches).toBe((record.batches as unknown[]).length)
        expect(molecule!.properties.Projects).toBe((record.projects as { name: string }[])[0]?.name)
      })
      files.push(fs.readFileSync(file, 'utf8'))
    }
    expect(files[1]).toBe(files[0])
  }, 120_000)
})
