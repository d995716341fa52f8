import fs from 'node:fs'
import path from 'node:path'
import type { RequestContext, VaultAccess } from '../../core/context.ts'
import { formatSeconds } from '../../core/dates.ts'
import { invalid, notFound } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { readableProjects, requireEditable } from './access-rules.ts'
import { visibleEntry } from './eln-store.ts'
import { protocolProjectIds, visibleProtocol } from './protocols.ts'
import { visibleRun } from './runs.ts'

/**
 * Files attached to a run, molecule, protocol or ELN entry (readout rows cannot take files; attach
 * to their run or protocol). Contents live in SQLite, so a --db file keeps them.
 */

const schema = `
CREATE TABLE IF NOT EXISTS uploaded_files (
  id INTEGER PRIMARY KEY,
  vault_id INTEGER NOT NULL REFERENCES vaults(id),
  resource_class TEXT NOT NULL CHECK (resource_class IN ('run', 'molecule', 'protocol', 'eln_entry')),
  resource_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  mime_type TEXT NOT NULL,
  contents BLOB NOT NULL,
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
  contents: Buffer
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

/** Rails-style MIME type object: `{string, symbol}` (gaps.md: mime_type{string}). */
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
    const id = Number(
      ctx.db
        .prepare(
          `INSERT INTO uploaded_files (vault_id, resource_class, resource_id, name, mime_type, contents, owner_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          access.vault.id,
          resourceClass,
          resourceId,
          name,
          mimeTypeOf(name, file.contentType),
          fs.readFileSync(file.path),
          ctx.user.id,
          ctx.sim.clock.nowSeconds(),
        ).lastInsertRowid,
    )
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
      return {
        id: row.id,
        class: 'uploaded file',
        name: row.name,
        mime_type: mimeTypeRecord(row.mime_type),
        resource_class: row.resource_class,
        resource_id: row.resource_id,
        size: row.contents.length,
        created_at: formatSeconds(row.created_at),
        contents: row.contents.toString('base64'),
      }
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
        return { message: `File ${row.id} has been destroyed` }
      },
      { write: true },
    )
  },
  moleculeDeletion: (db, moleculeId) => {
    db.prepare(
      `DELETE FROM uploaded_files WHERE resource_class = 'molecule' AND resource_id = ?`,
    ).run(moleculeId)
  },
}
