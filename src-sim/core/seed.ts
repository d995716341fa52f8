import type { Database } from 'better-sqlite3'
import type { Chemistry } from '../chem/chemistry.ts'
import { readMeta, writeMeta } from './database.ts'
import type { SeedContext, SeedKind, SimModule } from './module.ts'
import { Random } from './random.ts'
import { seedCast } from './seed-cast.ts'
import type { SeedCast } from './seed-cast.ts'

export type SeedOption = 'empty' | 'demo' | number

export function describeSeed(seed: SeedOption): { kind: SeedKind; moleculeCount: number } {
  if (seed === 'empty' || seed === 'demo') return { kind: seed, moleculeCount: 0 }
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`A numeric seed must be a whole number of molecules, got ${seed}`)
  return { kind: 'count', moleculeCount: seed }
}

/**
 * Seeds a new database: the cast, then every module's rows in module order. A database that was
 * already seeded (a --db file from an earlier run) keeps its data and its cast.
 */
export async function seedDatabase(
  db: Database,
  modules: readonly SimModule[],
  seed: SeedOption,
  chem: Chemistry,
  now: number,
  filesDirectory: string,
): Promise<SeedCast> {
  const { kind, moleculeCount } = describeSeed(seed)
  const stored = readMeta(db, 'cast')
  if (stored) {
    const storedSeed = JSON.parse(readMeta(db, 'seed') ?? '{}') as {
      kind?: SeedKind
      moleculeCount?: number
    }
    if (storedSeed.kind !== kind || storedSeed.moleculeCount !== moleculeCount) {
      throw new Error(
        `The database was seeded with ${describeStored(storedSeed)}, not ${describeStored({ kind, moleculeCount })}; ` +
          'use the same --seed, or delete the file to seed it again',
      )
    }
    return JSON.parse(stored) as SeedCast
  }
  const cast = db.transaction(() => seedCast(db, now))()
  const context: SeedContext = {
    db,
    kind,
    moleculeCount,
    random: new Random(20_261_121),
    now,
    chem,
    cast,
    batches: [],
    filesDirectory,
  }
  for (const module of modules) await module.seed?.(context)
  writeMeta(db, 'cast', JSON.stringify(cast))
  writeMeta(db, 'seed', JSON.stringify({ kind, moleculeCount }))
  return cast
}

function describeStored(seed: { kind?: SeedKind; moleculeCount?: number }): string {
  return seed.kind === 'count'
    ? `${seed.moleculeCount} molecules`
    : `the ${seed.kind ?? 'unknown'} seed`
}
