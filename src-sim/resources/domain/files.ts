import path from 'node:path'
import type { RequestContext } from '../../core/context.ts'
import type { ListedFile, VaultAccess } from '../../core/sim-core.ts'
import { formatSeconds } from '../../core/dates.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { streamReply } from '../../core/replies.ts'
import {
  base64Chunks,
  base64Length,
  contentsPath,
  keepContents,
  removeContents,
  sweepContents,
} from './file-contents.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import { visibleEntry } from './eln-store.ts'
import { protocolProjectIds, visibleProtocol } from './protocols.ts'
import { visibleRun } from './runs.ts'

/**
 * Files attached to a run, molecule, protocol or ELN entry (readout rows cannot take files; attach
 * to their run or protocol). The rows live in SQLite; the contents on disk, one file per id in
 * `sim.filesDirectory` (beside a --db file, so that it keeps them), streamed in and out: a file
 * may be larger than memory, and than an SQLite blob.
 */

const schema = `
CREATE TABLE IF NOT EXISTS uploaded_files (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  resource_class TEXT NOT NULL CHECK (resource_class IN ('run', 'molecule', 'protocol', 'eln_entry')),
  resource_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS uploaded_files_by_resource ON uploaded_files (resource_class, resource_id);
`

const RESOURCE_CLASSES = ['run', 'molecule', 'protocol', 'eln_entry'] as const
type ResourceClass = (typeof RESOURCE_CLASSES)[number]

export interface FileRow {
  id: number
  vault_id: number
  resource_class: ResourceClass
  resource_id: number
  name: string
  mime_type: string
  size: number
  owner_id: number
  created_at: number
}

const MIME_TYPES: Record<string, string> = {
  csv: 'text/csv',
  txt: 'text/plain',
  json: 'application/json',
  sdf: 'chemical/x-mdl-sdfile',
  mol: 'chemical/x-mdl-molfile',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
}

/** The file's type as its name says, else as the upload said. */
function mimeTypeOf(fileName: string, declared: string): string {
  const extension = path.extname(fileName).slice(1).toLowerCase()
  return MIME_TYPES[extension] ?? declared
}

/** Rails-style MIME type object: `{string, symbol}` (docs/spec/gaps.md: mime_type{string}). */
function mimeTypeRecord(mimeType: string): { string: string; symbol: string | null } {
  const symbol = Object.entries(MIME_TYPES).find(([, type]) => type === mimeType)?.[0] ?? null
  return { string: mimeType, symbol }
}

/** The projects of the resource a file attaches to; 404 when the user cannot read it. */
function resourceProjects(
  access: VaultAccess,
  resourceClass: ResourceClass,
  resourceId: number,
): number[] {
  switch (resourceClass) {
    case 'run':
      return [visibleRun(access, resourceId).project_id]
    case 'protocol':
      return protocolProjectIds(access.db, visibleProtocol(access, resourceId).id)
    case 'eln_entry':
      return [visibleEntry(access, resourceId).project_id]
    case 'molecule': {
      const projects = (
        access.db
          .prepare(
            `SELECT molecule_projects.project_id FROM molecule_projects
             JOIN molecules ON molecules.id = molecule_projects.molecule_id
             WHERE molecules.id = ? AND molecules.vault_id = ?
             AND molecule_projects.project_id IN (SELECT value FROM json_each(?))`,
          )
          .all(resourceId, access.vault.id, readableProjects(access)) as { project_id: number }[]
      ).map((row) => row.project_id)
      if (projects.length === 0) throw notFound(`Molecule ${resourceId}`)
      return projects
    }
  }
}

export function filesOf(
  access: VaultAccess,
  resourceClass: ResourceClass,
  resourceId: number,
): FileRow[] {
  return access.db
    .prepare(
      `SELECT * FROM uploaded_files WHERE vault_id = ? AND resource_class = ? AND resource_id = ? ORDER BY id`,
    )
    .all(access.vault.id, resourceClass, resourceId) as FileRow[]
}

function visibleFile(access: VaultAccess, id: number): FileRow {
  const row = access.db
    .prepare(`SELECT * FROM uploaded_files WHERE id = ? AND vault_id = ?`)
    .get(id, access.vault.id) as FileRow | undefined
  if (!row) throw notFound(`File ${id}`)
  try {
    resourceProjects(access, row.resource_class, row.resource_id)
  } catch {
    throw notFound(`File ${id}`)
  }
  return row
}

/**
 * A notebook entry's files are part of the entry: attaching or removing one changes it, so that
 * the entries query's `modified_after` finds it (runs, protocols and molecules list their files
 * in their records, read whole).
 */
function touchEntry(ctx: RequestContext, resourceClass: ResourceClass, resourceId: number): void {
  if (resourceClass !== 'eln_entry') return
  ctx.db
    .prepare(`UPDATE eln_entries SET modified_at = ? WHERE id = ?`)
    .run(ctx.sim.clock.nowSeconds(), resourceId)
}

async function attachFile(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const form = await ctx.multipart()
  try {
    const file = form.files.get('file')
    if (!file) throw invalid('file', 'is required: send the file as a multipart part named file')
    const resourceClass = form.fields.get('resource_class')
    if (!resourceClass || !(RESOURCE_CLASSES as readonly string[]).includes(resourceClass)) {
      throw invalid(
        'resource_class',
        `must be one of ${RESOURCE_CLASSES.join(', ')}, got ${JSON.stringify(resourceClass ?? null)}` +
          (resourceClass === 'readout_row' ? '; attach to the run or protocol instead' : ''),
      )
    }
    const rawId = form.fields.get('resource_id') ?? ''
    if (!/^\d+$/.test(rawId.trim()) || Number(rawId) < 1) {
      throw invalid('resource_id', `must be a positive integer id, got ${JSON.stringify(rawId)}`)
    }
    const unknown = [...form.fields.keys(), ...form.files.keys()].filter(
      (name) => !['file', 'resource_class', 'resource_id'].includes(name),
    )
    if (unknown.length > 0)
      throw invalid(unknown.map((name) => `'${name}'`).join(', '), 'is not a known part here')
    const resourceId = Number(rawId)
    const projects = resourceProjects(access, resourceClass as ResourceClass, resourceId)
    requireEditable(access, projects, `the files of ${resourceClass} ${resourceId}`)
    const name = path.basename(file.fileName || 'upload')
    const id = ctx.db.transaction(() => {
      const inserted = Number(
        ctx.db
          .prepare(
            `INSERT INTO uploaded_files (vault_id, resource_class, resource_id, name, mime_type, size, owner_id, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            access.vault.id,
            resourceClass,
            resourceId,
            name,
            mimeTypeOf(name, file.contentType),
            file.size,
            ctx.user.id,
            ctx.sim.clock.nowSeconds(),
          ).lastInsertRowid,
      )
      touchEntry(ctx, resourceClass as ResourceClass, resourceId)
      // Moved, not copied, where it can be; a failure rolls the row back.
      keepContents(ctx.sim.filesDirectory, inserted, file.path)
      return inserted
    })()
    return { id, name }
  } finally {
    form.discard()
  }
}

export const filesModule: SimModule = {
  name: 'files',
  schema,
  routes(router) {
    router.post('/vaults/{vault_id}/files', attachFile, { write: true })
    router.get('/vaults/{vault_id}/files/{file_id}', (ctx) => {
      const row = visibleFile(ctx.access, ctx.pathId('file_id'))
      const source = contentsPath(ctx.sim.filesDirectory, row.id)
      // The record with its contents last, base64 encoded from the file as the answer is written.
      const record = JSON.stringify({
        id: row.id,
        class: 'uploaded file',
        name: row.name,
        mime_type: mimeTypeRecord(row.mime_type),
        resource_class: row.resource_class,
        resource_id: row.resource_id,
        size: row.size,
        created_at: formatSeconds(row.created_at),
        contents: '',
      })
      const head = Buffer.from(record.slice(0, -2))
      const tail = Buffer.from('"}')
      return streamReply(
        'application/json; charset=utf-8',
        head.length + base64Length(row.size) + tail.length,
        async function* () {
          yield head
          yield* base64Chunks(source, row.size)
          yield tail
        },
      )
    })
    router.delete(
      '/vaults/{vault_id}/files/{file_id}',
      (ctx) => {
        const row = visibleFile(ctx.access, ctx.pathId('file_id'))
        requireEditable(
          ctx.access,
          resourceProjects(ctx.access, row.resource_class, row.resource_id),
          `file ${row.id}`,
        )
        ctx.db.prepare(`DELETE FROM uploaded_files WHERE id = ?`).run(row.id)
        touchEntry(ctx, row.resource_class, row.resource_id)
        removeContents(ctx.sim.filesDirectory, row.id)
        return { message: `File ${row.id} has been destroyed` }
      },
      { write: true },
    )
  },
  // Contents whose row is gone (its run or molecule was deleted, a crash between the two) are
  // swept at each start; a row's id may come back, and its new contents replace the old ones.
  start: (sim) => sweepContents(sim.db, sim.filesDirectory),
  moleculeFiles: (db, moleculeIds) => {
    const files = new Map<number, ListedFile[]>()
    if (moleculeIds.length === 0) return files
    const rows = db
      .prepare(
        `SELECT resource_id AS moleculeId, id, name FROM uploaded_files
         WHERE resource_class = 'molecule' AND resource_id IN (SELECT value FROM json_each(?))
         ORDER BY id`,
      )
      .all(JSON.stringify(moleculeIds)) as (ListedFile & { moleculeId: number })[]
    for (const { moleculeId, id, name } of rows) {
      const listed = files.get(moleculeId)
      if (listed) listed.push({ id, name })
      else files.set(moleculeId, [{ id, name }])
    }
    return files
  },
  moleculeDeletion: (db, moleculeId) => {
    db.prepare(
      `DELETE FROM uploaded_files WHERE resource_class = 'molecule' AND resource_id = ?`,
    ).run(moleculeId)
  },
}
