import fs from 'node:fs'
import path from 'node:path'
import type { RequestContext } from '../../core/context.ts'
import { invalid, tooManyRequests } from '../../core/http-error.ts'
import type { SimModule } from '../../core/module.ts'
import { advanceSlurps } from './slurp-lifecycle.ts'
import { readSlurpOptions } from './slurp-options.ts'
import { importFormatOf } from './slurp-reader.ts'
import {
  ACTIVE_STATES,
  MAX_RUNNING_SLURPS,
  slurpRecord,
  slurpSchema,
  visibleSlurp,
  type SlurpRow,
} from './slurp-store.ts'

/**
 * Slurps (data imports): upload a file (SDF, CSV, XLSX or a ZIP of them) with a `json` part of
 * import options; the slurp then moves through its states on the simulator clock and, once
 * committed, has created the molecules, batches, runs and readout rows of the file.
 */

async function createSlurp(ctx: RequestContext): Promise<unknown> {
  const access = ctx.access
  const form = await ctx.multipart()
  try {
    const file = form.files.get('file')
    if (!file)
      throw invalid('file', 'is required: send the import file as a multipart part named file')
    const format = importFormatOf(file.fileName)
    if (!format) {
      throw invalid(
        'file',
        `${JSON.stringify(file.fileName)} is not an .sdf, .csv, .xlsx or .zip file`,
      )
    }
    const jsonFile = form.files.get('json')
    const jsonText =
      form.fields.get('json') ?? (jsonFile ? fs.readFileSync(jsonFile.path, 'utf8') : undefined)
    if (jsonText === undefined)
      throw invalid('json', 'is required: send the import options as a part named json')
    const unknown = [...form.fields.keys(), ...form.files.keys()].filter(
      (name) => name !== 'file' && name !== 'json',
    )
    if (unknown.length > 0)
      throw invalid(unknown.map((name) => `'${name}'`).join(', '), 'is not a known part here')
    const options = readSlurpOptions(access, jsonText, ctx.sim.clock.nowSeconds())
    advanceSlurps(ctx.sim, { userId: ctx.user.id })
    const running = ctx.db
      .prepare(
        `SELECT COUNT(*) AS count FROM slurps WHERE user_id = ? AND state IN (SELECT value FROM json_each(?))`,
      )
      .get(ctx.user.id, JSON.stringify(ACTIVE_STATES)) as { count: number }
    if (running.count >= MAX_RUNNING_SLURPS) {
      throw tooManyRequests(
        `Too many imports: ${running.count} of this user's slurps are under way (at most ${MAX_RUNNING_SLURPS}); try again when one has finished`,
        5,
      )
    }
    const now = ctx.sim.clock.nowMillis()
    const id = Number(
      ctx.db
        .prepare(
          `INSERT INTO slurps (vault_id, user_id, token_id, project_id, file_name, file_format, contents, options, state, created_ms, state_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'mapping', ?, ?)`,
        )
        .run(
          access.vault.id,
          ctx.user.id,
          ctx.tokenId,
          options.projectId,
          path.basename(file.fileName),
          format,
          fs.readFileSync(file.path),
          JSON.stringify(options),
          now,
          now,
        ).lastInsertRowid,
    )
    return slurpRecord(ctx.db, visibleSlurp(access, id), false)
  } finally {
    form.discard()
  }
}

async function listSlurps(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const showEvents = params.boolean('show_events', false)
  params.rejectUnknown()
  advanceSlurps(ctx.sim, { vaultId: ctx.access.vault.id })
  const rows = ctx.db
    .prepare(
      `SELECT * FROM slurps WHERE vault_id = ? AND (user_id = ? OR ?)
       AND state IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(
      ctx.access.vault.id,
      ctx.user.id,
      ctx.access.isAdmin ? 1 : 0,
      JSON.stringify(ACTIVE_STATES),
    ) as SlurpRow[]
  return rows.map((row) => slurpRecord(ctx.db, row, showEvents))
}

async function showSlurp(ctx: RequestContext): Promise<unknown> {
  const params = await ctx.input()
  const showEvents = params.boolean('show_events', false)
  params.rejectUnknown()
  const id = visibleSlurp(ctx.access, ctx.pathId('id')).id
  advanceSlurps(ctx.sim, { slurpId: id })
  return slurpRecord(ctx.db, visibleSlurp(ctx.access, id), showEvents)
}

export const slurpsModule: SimModule = {
  name: 'slurps',
  schema: slurpSchema,
  routes(router) {
    router.get('/vaults/{vault_id}/slurps', listSlurps)
    router.post('/vaults/{vault_id}/slurps', createSlurp, { write: true })
    router.get('/vaults/{vault_id}/slurps/{id}', showSlurp)
  },
  dependentData: {
    project: (db, projectId) => {
      const { count } = db
        .prepare(`SELECT COUNT(*) AS count FROM slurps WHERE project_id = ?`)
        .get(projectId) as { count: number }
      return count > 0 ? `${count} slurps` : undefined
    },
  },
}
