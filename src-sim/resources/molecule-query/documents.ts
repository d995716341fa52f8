import type { Database } from 'better-sqlite3'
import { readMeta, writeMeta } from '../../core/database.ts'
import { documentTriggers } from './document-schema.ts'
import { defaultDisplay } from './registry-query.ts'
import { moleculeParts } from './records.ts'
import type { RecordViewer } from './records.ts'

/**
 * Every molecule's record, and every batch's, stored as JSON bytes, so that a page is answered by
 * joining stored bytes: no rows turned into objects and objects into JSON per request. A
 * document is the record as a viewer who reads every project sees it, without private
 * collections, and with the default display members:
 *
 *   {"id":… up to description | ,"smiles":… (identifiers as far as known) |
 *   ,<properties> | ,"collections":[…],"batches":[…] | ,"molecule_fields":{…},"udfs":{…}}
 *
 * The byte lengths of those parts let other displays cut it (no structures; batch ids, kept in
 * `batch_ids`; the molecule nested in a batch, which ends after its properties and fields) and
 * `original` holds `,"original_structure":…` (or nothing) to insert after the structures.
 * `reach` lists the projects a document names and the data sets that make its project-less
 * batches visible (`3,5|1`), so a reader can tell whether their view is the same; `projects` are
 * the molecule's own (the batch's own, in a batch document, whose `head` is the batch record up
 * to `"molecule":`). document-schema.ts drops the documents a write makes stale; they are
 * written again when next read.
 */

const documentColumns = `molecule_id, projects, reach, record, head_length, structures_length,
  properties_length, batches_length, tail_length, fields_length, original, batch_ids`

/** An object's members as JSON without the braces ('' for none). */
function members(piece: Record<string, unknown>): string {
  return JSON.stringify(piece).slice(1, -1)
}

/** `,members` for a piece that has members, else ''. */
function listed(piece: Record<string, unknown>): string {
  const text = members(piece)
  return text === '' ? '' : `,${text}`
}

function idList(items: readonly { id: unknown }[]): string {
  return items.map((item) => item.id).join(',')
}

const chunkSize = 1000

/** Writes the documents of these molecules and of their batches, replacing any there were. */
export function writeDocuments(db: Database, moleculeIds: readonly number[]): void {
  const viewer: RecordViewer = {
    db,
    projectIds: db.prepare(`SELECT id FROM projects`).pluck().all() as number[],
    user: { id: 0 },
  }
  const options = {
    ...defaultDisplay(),
    scope: {
      projectIds: viewer.projectIds,
      dataSetIds: db.prepare(`SELECT id FROM data_sets`).pluck().all() as number[],
    },
  }
  const insertMolecule = db.prepare(
    `INSERT OR REPLACE INTO molecule_documents (${documentColumns})
     VALUES (?, ?, ?, CAST(? AS BLOB), ?, ?, ?, ?, ?, ?, CAST(? AS BLOB), ?)`,
  )
  const insertBatch = db.prepare(
    `INSERT OR REPLACE INTO batch_documents (batch_id, molecule_id, projects, head)
     VALUES (?, ?, ?, CAST(? AS BLOB))`,
  )
  const dataSetsOf = db
    .prepare(
      `SELECT id, data_set_id FROM batches WHERE molecule_id IN (SELECT value FROM json_each(?))
       AND data_set_id IS NOT NULL`,
    )
    .raw()
  db.transaction(() => {
    for (let start = 0; start < moleculeIds.length; start += chunkSize) {
      const ids = moleculeIds.slice(start, start + chunkSize)
      const batchDataSets = new Map(dataSetsOf.all(JSON.stringify(ids)) as [number, number][])
      for (const parts of moleculeParts(viewer, ids, options)) {
        const ownProjects = parts.head.projects as { id: number }[]
        const projectIds = new Set(ownProjects.map((project) => project.id))
        const reachedDataSets = new Set<number>()
        for (const batch of parts.batches) {
          const projects = batch.projects as { id: number }[]
          for (const project of projects) projectIds.add(project.id)
          const dataSet = batchDataSets.get(batch.id as number)
          if (projects.length === 0 && dataSet !== undefined) reachedDataSets.add(dataSet)
          insertBatch.run(batch.id, parts.id, idList(projects), `{${members(batch)},"molecule":`)
        }
        const head = `{${members(parts.head)}`
        const structures = listed(parts.structures)
        const properties = `,${members(parts.properties)}`
        const batches = JSON.stringify(parts.batches)
        const fields = `,"molecule_fields":${JSON.stringify(parts.fields)}`
        const tail = `${fields},"udfs":${JSON.stringify(parts.fields)}}`
        insertMolecule.run(
          parts.id,
          idList(ownProjects),
          `${[...projectIds].join(',')}|${[...reachedDataSets].join(',')}`,
          `${head}${structures}${properties},"collections":${JSON.stringify(parts.collections)},"batches":${batches}${tail}`,
          Buffer.byteLength(head),
          Buffer.byteLength(structures),
          Buffer.byteLength(properties),
          Buffer.byteLength(batches),
          Buffer.byteLength(tail),
          Buffer.byteLength(fields),
          listed(parts.original),
          JSON.stringify(parts.batches.map((batch) => batch.id)),
        )
      }
    }
  })()
}

/**
 * The shape of stored documents. A --db file keeps its documents between runs, so change this
 * whenever records.ts or writeDocuments changes what a document holds: documents of another
 * format are written anew.
 */
const documentFormat = '1'

/**
 * Readies the documents when the simulator starts: their triggers go in (TEMP, so once per
 * connection), documents of another format go, and every molecule without a document gets one
 * (all of them after seeding, which leaves documents to this one pass).
 */
export function startDocuments(db: Database): void {
  db.exec(documentTriggers)
  if (readMeta(db, 'document format') !== documentFormat) {
    db.exec(`DELETE FROM molecule_documents; DELETE FROM batch_documents`)
    writeMeta(db, 'document format', documentFormat)
  }
  writeDocuments(
    db,
    db
      .prepare(
        `SELECT id FROM molecules WHERE id NOT IN (SELECT molecule_id FROM molecule_documents)`,
      )
      .pluck()
      .all() as number[],
  )
}
