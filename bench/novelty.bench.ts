/**
 * The novelty check while a chemist draws, over 250k cached molecules (chembl_250k.csv.gz stored
 * as sync stores them), per structure change: a mix of new structures (ZINC molecules the cache
 * does not hold), duplicates, stereoisomers and salt forms of cached molecules, with 25 molecules
 * registered offline in the outbox. Goal: p95 under 50 ms. The reference is the exact-match
 * look-up alone (by InChIKey and canonical SMILES, what a structure search's exact mode asks the
 * store) for the same inputs, in the same run.
 *
 * Computing InChIKeys for 250k molecules takes the details pass many minutes, so the index is
 * written directly: the molecules the inputs are drawn from (and 2,000 more) get their real keys
 * from the app's own worker task; every other row gets an InChIKey-shaped key made from a hash of
 * its SMILES, its SMILES as canonical SMILES and parent, and blobs the size of real fingerprints
 * and pickles, so that the tables and their indexes have the size and shape of a real index.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import Database from 'better-sqlite3'
import type { NoveltyKeys } from '../src-main/chem/novelty-keys.ts'
import { ChemWorkerPool } from '../src-main/chem/worker-pool.ts'
import { NoveltyService } from '../src-main/services/novelty-service.ts'
import { silentLogger } from '../src-main/shared/logger.ts'
import { connectionVaultId, VaultCache } from '../src-main/store/vault-cache.ts'
import type { PendingRecord } from '../src-main/sync/outbox/pending-records.ts'
import type { NoveltyRelation } from '../src-common/registration/novelty.ts'
import { chemblMoleculePages } from '../test/store/fixtures/chembl-molecules.ts'
import { percentile, progress, report } from './report.ts'

const moleculeCount = Number(process.env.BENCH_MOLECULES ?? 250_000)
const vaultId = 1
/** Inputs of each kind (new, duplicate, stereoisomer, salt form). */
const perKind = 100
const keyedExtra = 2000
const zincFile = '/work/shared/data/znp.50k.smi.gz'
const goalMs = 50

type InputKind = 'new' | 'duplicate' | 'stereo' | 'salt'
const expected: Record<InputKind, NoveltyRelation | null> = {
  new: null,
  duplicate: 'same-structure',
  stereo: 'other-stereo',
  salt: 'same-parent',
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-bench-novelty-'))
const pool = new ChemWorkerPool({ size: 1 })
const { cache } = VaultCache.open(path.join(dir, 'cache.db'))
try {
  // Every `stride`-th molecule is keyed for real; some of them are where the inputs come from.
  const stride = Math.max(1, Math.floor(moleculeCount / (perKind * 3 + keyedExtra)))
  const keyed: { id: number; smiles: string }[] = []
  const all: { id: number; smiles: string; name: string }[] = []
  let committing: Promise<unknown> = cache.writer.applyPage('vaults', connectionVaultId, [
    { id: vaultId, name: 'Benchmark vault' },
  ])
  for await (const page of chemblMoleculePages(moleculeCount, 1000)) {
    const next = cache.writer.applyPage('molecules', vaultId, page)
    await committing
    committing = next
    for (const record of page) {
      const molecule = {
        id: Number(record.id),
        smiles: String(record.smiles),
        name: String(record.name),
      }
      all.push(molecule)
      if (molecule.id % stride === 0) keyed.push(molecule)
    }
    if (all.length % 50_000 === 0) progress(`${all.length} molecules cached`)
  }
  await committing
  while (cache.writer.running) await new Promise((resolve) => setTimeout(resolve, 200))

  progress(`computing real keys of ${keyed.length} molecules`)
  const realKeys = new Map<number, NoveltyKeys>()
  for (let start = 0; start < keyed.length; start += 200) {
    const batch = keyed.slice(start, start + 200)
    const answers = await pool.run({
      kind: 'noveltyKeys',
      structures: batch.map((molecule) => molecule.smiles),
    })
    batch.forEach((molecule, index) => realKeys.set(molecule.id, answers[index]!))
  }

  progress('writing the structure index')
  writeStructureIndex(cache.file, all, realKeys)
  all.length = 0

  const usable = keyed.filter((molecule) => {
    const keys = realKeys.get(molecule.id)
    return keys?.ok === true && keys.keys.removedFragments.length === 0
  })
  const chiral = usable.filter((molecule) => /@/.test(molecule.smiles))
  const plain = usable.filter((molecule) => !/@/.test(molecule.smiles))
  // Each input but the new ones comes from a cached molecule (`of`), which it must find.
  const inputs: { kind: InputKind; text: string; of: number | null }[] = []
  const newOnes = readZinc(perKind)
  for (let i = 0; i < perKind; i++) {
    const duplicate = plain[i % plain.length]!
    const stereo = chiral[i % chiral.length]!
    const salt = plain[(i + perKind) % plain.length]!
    inputs.push({ kind: 'new', text: newOnes[i]!, of: null })
    inputs.push({ kind: 'duplicate', text: duplicate.smiles, of: duplicate.id })
    inputs.push({ kind: 'stereo', text: flipped(stereo.smiles), of: stereo.id })
    inputs.push({ kind: 'salt', text: `${salt.smiles}.Cl`, of: salt.id })
  }
  const pending = usable.slice(-25).map((molecule, index): PendingRecord => ({
    kind: 'molecules',
    id: null,
    createdBy: index + 1,
    state: 'queued',
    itemIds: [index + 1],
    record: { name: `Offline ${index + 1}`, smiles: `${molecule.smiles}.O` },
  }))
  const service = new NoveltyService({
    cache: () => cache,
    pendingRecords: () => pending,
    pool,
    log: silentLogger,
  })

  progress(`warming up, then ${inputs.length} checks`)
  for (const input of inputs.slice(0, 20)) await service.check('bench', vaultId, smiles(input.text))
  const timings: number[] = []
  const wrong: string[] = []
  let unchecked = 0
  for (const input of inputs) {
    const started = performance.now()
    const answer = await service.check('bench', vaultId, smiles(input.text))
    timings.push(performance.now() - started)
    if (!answer.ok) {
      wrong.push(`${input.kind} ${input.text}: ${answer.error}`)
      continue
    }
    unchecked = answer.unchecked
    // The cache may hold the stereoisomer drawn too (ChEMBL has both of some pairs): the
    // molecule the input came from must be found, under the relation its kind has.
    const cached = answer.matches.filter((match) => match.pendingItem === null)
    const right =
      input.of === null
        ? cached.length === 0
        : cached.some((match) => match.id === input.of && match.relation === expected[input.kind])
    if (!right) {
      const found = cached.map((match) => `${match.id} ${match.relation}`).join(', ')
      wrong.push(`${input.kind} ${input.text}: ${found || 'no match'}`)
    }
  }

  // The reference: the exact-match look-ups alone, for the same drawn structures.
  const repository = cache.structureIndex(vaultId)
  const lookups: number[] = []
  for (const input of inputs) {
    const [keys] = await pool.run({ kind: 'noveltyKeys', structures: [input.text] })
    if (!keys?.ok) continue
    const started = performance.now()
    repository.idsByInchiKey(keys.keys.inchiKey)
    repository.idsByCanonicalSmiles(keys.keys.canonicalSmiles)
    lookups.push(performance.now() - started)
  }

  // What the check counts once per change of the vault's index (see NoveltyService.indexChanged).
  const countStarted = performance.now()
  repository.noveltyUncheckedCount()
  const uncheckedCountMs = performance.now() - countStarted

  timings.sort((a, b) => a - b)
  lookups.sort((a, b) => a - b)
  const p95 = percentile(timings, 0.95)
  const lookupP95 = percentile(lookups, 0.95)
  report({
    name: 'novelty.check_p95_250k',
    value: round(p95),
    unit: 'ms',
    reference: 'p95 of the exact-match look-up alone (by InChIKey and canonical SMILES)',
    referenceValue: round(lookupP95),
    ratio: round(p95 / lookupP95),
    goal: `p95 under ${goalMs} ms per structure change`,
    met: p95 < goalMs && wrong.length === 0,
    molecules: moleculeCount,
    checks: timings.length,
    p50Ms: round(percentile(timings, 0.5)),
    maxMs: round(timings[timings.length - 1]!),
    pendingInOutbox: pending.length,
    unchecked,
    uncheckedCountMs: round(uncheckedCountMs),
    wrongAnswers: wrong.length,
    firstWrong: wrong.slice(0, 3),
    loadAverage: os.loadavg()[0],
  })
  await service.close()
} finally {
  await pool.close()
  await cache.close()
  fs.rmSync(dir, { recursive: true, force: true })
}

function smiles(text: string) {
  return { format: 'smiles' as const, text }
}

function round(value: number): number {
  return Number(value.toFixed(3))
}

/**
 * The first stereocentre written the other way round: a diastereomer or the enantiomer (flipping
 * every centre of a structure with relative stereo only would give it back unchanged).
 */
function flipped(text: string): string {
  return text.replace(/@@?/, (mark) => (mark === '@' ? '@@' : '@'))
}

function readZinc(count: number): string[] {
  const lines = zlib.gunzipSync(fs.readFileSync(zincFile)).toString('utf8').split('\n')
  return lines
    .slice(0, count)
    .map((line) => line.split(/\s+/)[0]!)
    .filter((text) => text !== '')
}

/**
 * The structure index as ingest and the details pass leave it: real keys where computed, keys of
 * the same shape elsewhere (see the comment at the top).
 */
function writeStructureIndex(
  file: string,
  molecules: readonly { id: number; smiles: string }[],
  realKeys: ReadonlyMap<number, NoveltyKeys>,
): void {
  // A connection of its own, as the cache writer has: the bench writes what ingest would.
  const db = new Database(file)
  db.pragma('busy_timeout = 10000')
  const insert = db.prepare(
    `INSERT INTO structure_index (vault_id, molecule_id, content_hash, parse_error,
       canonical_smiles, inchikey, parent_smiles, pattern_fp, morgan_fp, pickle,
       known_properties, computed_at, details_pending)
     VALUES (${vaultId}, ?, ?, NULL, ?, ?, ?, zeroblob(256), zeroblob(256), zeroblob(900), '{}',
       '2026-11-29T00:00:00.000Z', 0)`,
  )
  const computedAt = db.transaction((rows: readonly { id: number; smiles: string }[]) => {
    for (const { id, smiles: text } of rows) {
      const real = realKeys.get(id)
      if (real?.ok) {
        const { canonicalSmiles, inchiKey, parentSmiles } = real.keys
        insert.run(id, `hash-${id}`, canonicalSmiles, inchiKey, parentSmiles)
      } else {
        insert.run(id, `hash-${id}`, text, inchiKeyShaped(text), largestPiece(text))
      }
    }
  })
  try {
    for (let start = 0; start < molecules.length; start += 10_000) {
      computedAt(molecules.slice(start, start + 10_000))
    }
  } finally {
    db.close()
  }
}

/** 27 characters shaped like a standard InChIKey, unique per SMILES. */
function inchiKeyShaped(text: string): string {
  const digest = createHash('sha256').update(text).digest()
  const letters = [...digest].map((byte) => String.fromCharCode(65 + (byte % 26))).join('')
  return `${letters.slice(0, 14)}-${letters.slice(14, 22)}SA-N`
}

function largestPiece(text: string): string {
  return text
    .split('.')
    .reduce((largest, piece) => (piece.length > largest.length ? piece : largest))
}
