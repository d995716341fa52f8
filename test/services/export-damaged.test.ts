/**
 * An SD file of molecules whose cached records are awkward, read back by Debian's RDKit: a
 * molecule without any structure, one given as SMILES only, names and values in any script and
 * reading `$$$$` (which an SD reader takes for a record's end), and two records damaged in the
 * cache after sync stored them (their JSON text no longer parses). The list's values of every
 * molecule are written; a damaged record whose molfile can still be read keeps its structure, one
 * whose molfile is lost is written without one and named in the summary; an export that needs a
 * damaged record whole (every field) fails with an error naming it and leaves no file.
 *
 * An export reads its rows on a connection of its own (a small page cache): it is closed however
 * the export ends (completed, failed or cancelled), which the process's open descriptors of the
 * cache's WAL file show.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChemWorkerPool } from '../../src-main/chem/worker-pool.ts'
import { BrowseService } from '../../src-main/services/browse-service.ts'
import { LocalChemService } from '../../src-main/services/chem-service.ts'
import type { ConnectionRuntimes } from '../../src-main/services/connection-runtimes.ts'
import { ExportService, type ExportRequest } from '../../src-main/services/export-service.ts'
import { ResultsService } from '../../src-main/services/results-service.ts'
import { EventBus } from '../../src-main/shared/events.ts'
import { silentLogger } from '../../src-main/shared/logger.ts'
import { VaultCache } from '../../src-main/store/vault-cache.ts'
import { canonicalSmiles, exportReadersHere, readCsv, readSdf } from '../support/export-readers.ts'

const readersHere = exportReadersHere()

interface Molecule {
  id: number
  name: string
  smiles?: string
  /** Whether the record carries its molfile (RDKit's, from the SMILES). */
  molfile: boolean
  project?: string
}

const molecules: Molecule[] = [
  { id: 1, name: 'Aspirin', smiles: 'CC(=O)Oc1ccccc1C(=O)O', molfile: true },
  {
    id: 2,
    name: 'Ünïcödé 化合物 🧪',
    smiles: 'C[C@H](N)C(=O)O',
    molfile: true,
    project: 'Projet « été » 化合物 🧪',
  },
  { id: 3, name: '$$$$', smiles: 'c1ccc2[nH]ccc2c1', molfile: true, project: '$$$$ first' },
  { id: 4, name: 'No structure at all', molfile: false },
  { id: 5, name: 'SMILES only', smiles: 'c1ccncc1', molfile: false },
  { id: 6, name: 'Damaged before its molfile', smiles: 'N#Cc1ccc(Br)cc1', molfile: true },
  { id: 7, name: 'Damaged molfile', smiles: 'OC(=O)c1ccccc1', molfile: true },
]

let folder: string
let cacheFile: string
let cache: VaultCache
let chem: LocalChemService
let exports: (pageSize?: number) => ExportService

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-export-damaged-'))
  const drawn = molecules.filter((molecule) => molecule.smiles !== undefined)
  const pool = new ChemWorkerPool({ size: 1 })
  let molblocks: ({ molblock: string } | { problem: string })[]
  try {
    molblocks = await pool.run({
      kind: 'writeMolblocks',
      structures: drawn.map((molecule) => molecule.smiles!),
    })
  } finally {
    await pool.close()
  }
  const molblockOf = new Map(
    drawn.map((molecule, index) => {
      const answer = molblocks[index]!
      if (!('molblock' in answer)) throw new Error(`RDKit could not draw ${molecule.smiles}`)
      return [molecule.id, answer.molblock]
    }),
  )
  cacheFile = path.join(folder, 'cache.db')
  const { cache: opened } = VaultCache.open(cacheFile)
  cache = opened
  cache.replaceVaults([{ id: 1, name: 'Lab' }])
  cache.applyPage(
    'molecules',
    1,
    molecules.map((molecule) => ({
      id: molecule.id,
      name: molecule.name,
      ...(molecule.smiles !== undefined && !molecule.molfile ? { smiles: molecule.smiles } : {}),
      projects: molecule.project ? [{ id: molecule.id, name: molecule.project }] : [],
      batches: [],
      // Last, as the vault gives it.
      ...(molecule.molfile ? { molfile: molblockOf.get(molecule.id) } : {}),
    })),
  )
  // Damaged after sync stored them, as a disk or a hand edit could: one in its middle (its
  // molfile, last, whole), one cut inside its molfile.
  const db = new Database(cacheFile)
  try {
    db.prepare(
      `UPDATE molecules SET json = replace(json, '"projects":', '"projects" ') WHERE id = 6`,
    ).run()
    db.prepare(`UPDATE molecules SET json = substr(json, 1, length(json) - 40) WHERE id = 7`).run()
    const broken = db
      .prepare('SELECT count(*) FROM molecules WHERE id IN (6, 7) AND NOT json_valid(json)')
      .pluck()
      .get()
    expect(broken).toBe(2)
  } finally {
    db.close()
  }
  const runtimes = { get: () => ({ cache }), opened: () => [] } as unknown as ConnectionRuntimes
  const events = new EventBus()
  chem = new LocalChemService({ runtimes, events, log: silentLogger })
  const browse = new BrowseService(runtimes, undefined, chem)
  const results = new ResultsService(runtimes)
  exports = (pageSize) =>
    new ExportService({
      browse,
      results,
      chem,
      events,
      log: silentLogger,
      ...(pageSize ? { pageSize } : {}),
    })
}, 120_000)

afterAll(async () => {
  await chem?.close()
  await cache?.close()
  if (folder) fs.rmSync(folder, { recursive: true, force: true })
})

function request(
  format: ExportRequest['format'],
  columns: ExportRequest['columns'],
): ExportRequest {
  return { connectionId: 'lab', vaultId: 1, question: { kind: 'molecules' }, format, columns }
}

/**
 * The process's open descriptors of the cache's WAL file: one per open connection. (Not of the
 * database file: SQLite keeps a closed connection's descriptor of it open for the next one, while
 * another connection of the process holds locks on the file.)
 */
function cacheDescriptors(): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === `${cacheFile}-wal`
    } catch {
      return false
    }
  }).length
}

describe.runIf(readersHere)('an SD file of awkward and damaged molecules', () => {
  it('holds every molecule RDKit reads back, damaged ones named and kept as far as they can be', async () => {
    const byName = [...molecules].sort((a, b) => a.name.localeCompare(b.name))
    const expected = canonicalSmiles(molecules.map((molecule) => molecule.smiles ?? 'C'))
    const files: string[] = []
    let before = 0
    for (const pageSize of [undefined, 2]) {
      const file = path.join(folder, `awkward-${pageSize ?? 'default'}.sdf`)
      // The first export starts the cache's other connections (the chemistry's among them).
      before = cacheDescriptors()
      const summary = await exports(pageSize).toFile(request('sdf', 'view'), file)
      expect(summary.records).toBe(molecules.length)
      // No structure at all, and the molfile cut short.
      expect(summary.withoutStructure).toBe(2)
      const damagedNote = summary.notes.find((note) => note.includes('damaged in the cache'))
      expect(damagedNote).toContain('1 molecule(s)')
      expect(damagedNote).toContain('Molecule 7 "Damaged molfile"')
      expect(damagedNote).not.toContain('Molecule 6')

      const read = readSdf(file)
      expect(read).toHaveLength(molecules.length)
      read.forEach((record, index) => {
        const molecule = byName[index]!
        expect(record, molecule.name).not.toBeNull()
        // A title reading `$$$$` gets a leading space, so that it does not end the record.
        expect(record!.title.trim()).toBe(molecule.name)
        expect(record!.properties.ID).toBe(molecule.id)
        if (molecule.project !== undefined) {
          expect(String(record!.properties.Projects).trim()).toBe(molecule.project)
        } else {
          expect(record!.properties.Projects).toBeUndefined()
        }
        const lost = molecule.smiles === undefined || molecule.id === 7
        expect(record!.smiles, molecule.name).toBe(lost ? null : expected[molecule.id - 1])
      })
      files.push(fs.readFileSync(file, 'utf8'))
    }
    expect(files[1]).toBe(files[0])
    expect(cacheDescriptors()).toBe(before)
  }, 120_000)

  it('writes a damaged record’s list values to CSV, which reads no record', async () => {
    const file = path.join(folder, 'awkward.csv')
    const before = cacheDescriptors()
    const summary = await exports().toFile(request('csv', 'view'), file)
    expect(summary.records).toBe(molecules.length)
    const rows = readCsv(file)
    const names = rows.slice(1).map((cells) => cells[rows[0]!.indexOf('Name')])
    expect(names).toEqual([...molecules].map((m) => m.name).sort((a, b) => a.localeCompare(b)))
    expect(cacheDescriptors()).toBe(before)
  })

  it('fails an export of every field with an error naming the damaged record, leaving no file', async () => {
    for (const format of ['sdf', 'csv', 'jsonl'] as const) {
      const file = path.join(folder, `every-field.${format}`)
      const before = cacheDescriptors()
      const failure = exports(2).toFile(request(format, 'all'), file)
      await expect(failure, format).rejects.toMatchObject({
        code: 'storage',
        message: expect.stringMatching(
          /^Molecule 6 "Damaged before its molfile" \(cache row \d+\) is damaged in the cache: its stored text is not JSON/,
        ),
      })
      expect(fs.existsSync(file)).toBe(false)
      expect(fs.readdirSync(folder).filter((name) => name.startsWith('every-field'))).toEqual([])
      expect(cacheDescriptors(), format).toBe(before)
    }
  })

  it('closes its reading when cancelled mid-list', async () => {
    const abort = new AbortController()
    const file = path.join(folder, 'cancelled.sdf')
    let opened = 0
    const before = cacheDescriptors()
    const failure = exports(2).toFile(request('sdf', 'view'), file, {
      signal: abort.signal,
      onProgress: () => {
        opened = Math.max(opened, cacheDescriptors())
        abort.abort()
      },
    })
    await expect(failure).rejects.toMatchObject({ code: 'cancelled' })
    // The reading's own connection was open while it read, and is closed once it is cancelled.
    expect(opened).toBe(before + 1)
    expect(cacheDescriptors()).toBe(before)
    expect(fs.existsSync(file)).toBe(false)
  })
})
