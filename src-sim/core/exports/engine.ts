import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Database } from 'better-sqlite3'
import type { Chemistry } from '../../chem/chemistry.ts'
import type { SimClock } from '../clock.ts'
import { formatSeconds } from '../dates.ts'
import { HttpError, invalid, notFound } from '../http-error.ts'
import { Params } from '../params.ts'
import type { SimExports, VaultAccess } from '../sim-core.ts'
import type { SimStats } from '../stats.ts'
import { contentTypes, isRecordExportable } from './exportable.ts'
import type { Exportable, RecordExportable } from './exportable.ts'
import { csvLine, flattenRecord, sdfRecord } from './record-writers.ts'
import { createZip } from '../../pure/zip-writer.ts'

export interface ExportTiming {
  /** From creation until the export may start (it shows `new` meanwhile). */
  startDelayMs: number
  /** From start until finished (it shows `started` meanwhile). */
  durationMs: number
}

export interface ExportLimits {
  /** Exports one user may have started at once (the spec's "Exports running at once": 3). */
  running: number
  /** Exports beyond those that wait as `new`; one more answers 429. */
  queued: number
}

export const defaultExportLimits: ExportLimits = { running: 3, queued: 30 }

interface ExportRow {
  id: number
  vault_id: number
  user_id: number
  token_id: number
  kind: string
  format: string
  zipped: number
  params: string
  params_origin: 'query' | 'body'
  status: string
  created_ms: number
  modified_ms: number
  started_ms: number | null
  file_path: string | null
  file_name: string | null
  download_key: string | null
  failure: string | null
}

interface RenderState {
  doneAtMs: number | undefined
  failure: string | undefined
}

export interface ExportDependencies {
  db: Database
  clock: SimClock
  stats: SimStats
  chem: Chemistry
  directory: string
  timing: ExportTiming
  limits?: ExportLimits
  accessFor(userId: number, tokenId: number, vaultId: number): VaultAccess | undefined
  downloadBaseUrl(): string
}

/**
 * Async exports. An export's status follows the simulator clock: `new` until it may start and a
 * running slot is free (3 per user), `started` for the configured duration, then `finished` once
 * its file is also written. The file is rendered as soon as the export is created, in pages that
 * yield to the event loop, so an export never blocks the other requests.
 */
export class ExportEngine implements SimExports {
  readonly #deps: ExportDependencies
  readonly #limits: ExportLimits
  readonly #exportables = new Map<string, Exportable>()
  readonly #renders = new Map<number, RenderState>()
  #stopped = false

  constructor(deps: ExportDependencies) {
    this.#deps = deps
    this.#limits = deps.limits ?? defaultExportLimits
    fs.mkdirSync(deps.directory, { recursive: true })
    // Renders do not survive a restart: exports still under way when the last run stopped failed.
    deps.db
      .prepare(
        `UPDATE exports SET status = 'failed', failure = 'The simulator restarted while it was under way'
         WHERE status IN ('new', 'started')`,
      )
      .run()
  }

  register(exportable: Exportable): void {
    if (this.#exportables.has(exportable.kind))
      throw new Error(`Export kind ${exportable.kind} is registered twice`)
    this.#exportables.set(exportable.kind, exportable)
  }

  start(
    access: VaultAccess,
    kind: string,
    params: Params,
    requestedFormat: string | undefined,
    options: { zip?: boolean } = {},
  ): Record<string, unknown> {
    const exportable = this.#exportables.get(kind)
    if (!exportable) throw new Error(`No exportable is registered for ${kind}`)
    const format = (requestedFormat ?? exportable.formats[0] ?? 'json').toLowerCase()
    if (!(exportable.formats as readonly string[]).includes(format)) {
      throw invalid(
        'format',
        `must be one of ${exportable.formats.map((item) => `'${item}'`).join(', ')} for this export, got '${requestedFormat}'`,
      )
    }
    this.#advance(access.user.id)
    const counts = this.#deps.db
      .prepare(
        `SELECT SUM(status = 'started') AS running, SUM(status = 'new') AS queued
         FROM exports WHERE user_id = ? AND status IN ('new', 'started')`,
      )
      .get(access.user.id) as { running: number | null; queued: number | null }
    if (
      (counts.running ?? 0) >= this.#limits.running &&
      (counts.queued ?? 0) >= this.#limits.queued
    ) {
      this.#deps.stats.exportQueueRejections++
      throw new HttpError(
        429,
        `Too many exports: ${this.#limits.running} are running and ${this.#limits.queued} are queued for this user`,
        { headers: { 'retry-after': '5' } },
      )
    }
    const now = this.#deps.clock.nowMillis()
    const id = Number(
      this.#deps.db
        .prepare(
          `INSERT INTO exports (vault_id, user_id, token_id, kind, format, zipped, params, params_origin, status, created_ms, modified_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'new', ?, ?)`,
        )
        .run(
          access.vault.id,
          access.user.id,
          access.tokenId,
          kind,
          format,
          Number(options.zip ?? false),
          JSON.stringify(params.toJSON()),
          params.origin,
          now,
          now,
        ).lastInsertRowid,
    )
    const render: RenderState = { doneAtMs: undefined, failure: undefined }
    this.#renders.set(id, render)
    void this.#render(id, exportable, access, params, format, options.zip ?? false, render)
    this.#advance(access.user.id)
    return this.#record(this.#row(id))
  }

  progress(access: VaultAccess, exportId: number): Record<string, unknown> {
    return this.#record(this.#visible(access, exportId))
  }

  /** The key's active exports (spec: "all active exports of the API key"): new or started. */
  listForToken(tokenId: number, userId: number): Record<string, unknown>[] {
    this.#advance(userId)
    const rows = this.#deps.db
      .prepare(
        `SELECT * FROM exports WHERE token_id = ? AND status IN ('new', 'started') ORDER BY id`,
      )
      .all(tokenId) as ExportRow[]
    return rows.map((row) => this.#record(row))
  }

  downloadLocation(access: VaultAccess, exportId: number): string {
    const row = this.#visible(access, exportId)
    if (row.status !== 'finished') {
      const progress = this.#record(row)
      throw new HttpError(403, `Export ${exportId} is not finished (status ${row.status})`, {
        body: {
          code: 403,
          error: `Export ${exportId} is not finished (status ${row.status})`,
          ...progress,
        },
      })
    }
    return `${this.#deps.downloadBaseUrl()}/exports/${row.download_key}/${encodeURIComponent(row.file_name ?? `export-${row.id}`)}`
  }

  cancel(access: VaultAccess, exportId: number): Record<string, unknown> {
    const row = this.#visible(access, exportId)
    if (row.status !== 'new' && row.status !== 'started') {
      throw new HttpError(405, `Export ${exportId} cannot be canceled (status ${row.status})`, {
        body: this.#record(row),
      })
    }
    this.#deps.db
      .prepare(`UPDATE exports SET status = 'canceled', modified_ms = ? WHERE id = ?`)
      .run(this.#deps.clock.nowMillis(), exportId)
    this.#renders.delete(exportId)
    this.#advance(access.user.id)
    return this.#record(this.#row(exportId))
  }

  fileForDownload(
    key: string,
  ): { path: string; fileName: string; contentType: string } | undefined {
    const row = this.#deps.db
      .prepare(`SELECT * FROM exports WHERE download_key = ? AND status = 'finished'`)
      .get(key) as ExportRow | undefined
    if (!row?.file_path || !fs.existsSync(row.file_path)) return undefined
    return {
      path: row.file_path,
      fileName: row.file_name ?? `export-${row.id}`,
      contentType:
        row.zipped === 1
          ? (contentTypes.zip as string)
          : (contentTypes[row.format] ?? 'application/octet-stream'),
    }
  }

  stop(): void {
    this.#stopped = true
  }

  #visible(access: VaultAccess, exportId: number): ExportRow {
    this.#advance(access.user.id)
    const row = this.#deps.db.prepare(`SELECT * FROM exports WHERE id = ?`).get(exportId) as
      ExportRow | undefined
    if (!row || row.user_id !== access.user.id || row.vault_id !== access.vault.id)
      throw notFound(`Export ${exportId}`)
    return row
  }

  #row(id: number): ExportRow {
    return this.#deps.db.prepare(`SELECT * FROM exports WHERE id = ?`).get(id) as ExportRow
  }

  #record(row: ExportRow): Record<string, unknown> {
    const record: Record<string, unknown> = {
      id: row.id,
      status: row.status,
      created_at: formatSeconds(Math.floor(row.created_ms / 1000)),
      modified_at: formatSeconds(Math.floor(row.modified_ms / 1000)),
      format: row.format,
    }
    if (row.status === 'new') {
      const position = this.#deps.db
        .prepare(
          `SELECT COUNT(*) AS ahead FROM exports WHERE user_id = ? AND status = 'new' AND id < ?`,
        )
        .get(row.user_id, row.id) as { ahead: number }
      record.queued_job_position = position.ahead + 1
    }
    if (row.failure) record.error = row.failure
    return record
  }

  /**
   * Moves a user's exports along the clock, one event at a time in time order: a running export
   * finishes when its duration has passed and its file is written; a queued one starts when it
   * may and a running slot is free.
   */
  #advance(userId: number): void {
    const { db, clock, timing } = this.#deps
    const now = clock.nowMillis()
    const rows = db
      .prepare(
        `SELECT * FROM exports WHERE user_id = ? AND status IN ('new', 'started') ORDER BY id`,
      )
      .all(userId) as ExportRow[]
    const update = db.prepare(
      `UPDATE exports SET status = ?, modified_ms = ?, started_ms = COALESCE(?, started_ms), failure = ? WHERE id = ?`,
    )
    const running: { id: number; startedMs: number }[] = []
    for (const row of rows.filter((candidate) => candidate.status === 'started')) {
      const render = this.#renders.get(row.id)
      if (render === undefined || render.failure !== undefined) {
        update.run('failed', now, null, render?.failure ?? 'The export was lost', row.id)
      } else {
        running.push({ id: row.id, startedMs: row.started_ms ?? now })
      }
    }
    const queued = rows.filter((row) => row.status === 'new')
    let freeSince =
      running.length < this.#limits.running ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
    for (;;) {
      let finish: { index: number; at: number } | undefined
      running.forEach((entry, index) => {
        const doneAt = this.#renders.get(entry.id)?.doneAtMs
        if (doneAt === undefined) return
        const at = Math.max(entry.startedMs + timing.durationMs, doneAt)
        if (!finish || at < finish.at) finish = { index, at }
      })
      const next = queued[0]
      const startAt =
        next && running.length < this.#limits.running
          ? Math.max(next.created_ms + timing.startDelayMs, freeSince)
          : undefined
      if (startAt !== undefined && startAt <= now && (!finish || startAt <= finish.at)) {
        update.run('started', startAt, startAt, null, next!.id)
        queued.shift()
        running.push({ id: next!.id, startedMs: startAt })
        const stats = this.#deps.stats
        stats.maxRunningExportsPerUser = Math.max(stats.maxRunningExportsPerUser, running.length)
        if (running.length >= this.#limits.running) freeSince = Number.POSITIVE_INFINITY
      } else if (finish && finish.at <= now) {
        const [entry] = running.splice(finish.index, 1)
        update.run('finished', finish.at, null, null, entry!.id)
        if (running.length === this.#limits.running - 1) freeSince = finish.at
      } else {
        return
      }
    }
  }

  async #render(
    id: number,
    exportable: Exportable,
    access: VaultAccess,
    params: Params,
    format: string,
    zip: boolean,
    state: RenderState,
  ): Promise<void> {
    const renderStartedAt = performance.now()
    const innerName = `${exportable.kind}-${id}.${format}`
    const fileName = zip ? `${innerName}.zip` : innerName
    const filePath = path.join(
      this.#deps.directory,
      `${id}-${randomBytes(6).toString('hex')}.${format}`,
    )
    try {
      if (isRecordExportable(exportable)) {
        await this.#writeRecords(exportable, access, params, format, filePath, id)
      } else {
        fs.writeFileSync(filePath, await exportable.render(access, params, format))
      }
      if (zip) {
        fs.writeFileSync(
          filePath,
          createZip([{ name: innerName, data: fs.readFileSync(filePath) }]),
        )
      }
      if (this.#stopped || !this.#renders.has(id)) {
        fs.rmSync(filePath, { force: true })
        return
      }
      this.#deps.db
        .prepare(`UPDATE exports SET file_path = ?, file_name = ?, download_key = ? WHERE id = ?`)
        .run(filePath, fileName, randomBytes(24).toString('base64url'), id)
      state.doneAtMs = this.#deps.clock.nowMillis()
      // api_executions counts asynchronous work too, against the key that asked for it.
      this.#deps.db
        .prepare(`INSERT INTO api_executions (token_id, at, seconds) VALUES (?, ?, ?)`)
        .run(
          access.tokenId,
          Math.floor(state.doneAtMs / 1000),
          (performance.now() - renderStartedAt) / 1000,
        )
    } catch (error) {
      fs.rmSync(filePath, { force: true })
      state.failure =
        error instanceof HttpError
          ? error.message
          : `The export failed: ${(error as Error).message}`
    }
  }

  async #writeRecords(
    exportable: RecordExportable,
    access: VaultAccess,
    params: Params,
    format: string,
    filePath: string,
    id: number,
  ): Promise<void> {
    const pages = () =>
      exportable.pages(access, new Params(params.toJSON(), params.origin, params.timeZone))
    const fd = fs.openSync(filePath, 'w')
    try {
      if (format === 'csv') {
        const columns = new Map<string, number>()
        for await (const page of pages()) {
          for (const record of page)
            for (const key of Object.keys(flattenRecord(record)))
              if (!columns.has(key)) columns.set(key, columns.size)
          if (await this.#pause(id)) return
        }
        const names = [...columns.keys()]
        fs.writeSync(fd, csvLine(names))
        for await (const page of pages()) {
          fs.writeSync(
            fd,
            page
              .map((record) => {
                const flat = flattenRecord(record)
                return csvLine(names.map((name) => flat[name]))
              })
              .join(''),
          )
          if (await this.#pause(id)) return
        }
      } else if (format === 'sdf') {
        for await (const page of pages()) {
          fs.writeSync(
            fd,
            page.map((record) => sdfRecord(this.#molfileOf(record), record)).join(''),
          )
          if (await this.#pause(id)) return
        }
      } else {
        const separator = ',\n'
        const segments = exportable.jsonPages
          ? exportable.jsonPages(
              access,
              new Params(params.toJSON(), params.origin, params.timeZone),
              separator,
            )
          : (async function* () {
              for await (const page of pages())
                yield {
                  records: page.length,
                  segments:
                    page.length === 0
                      ? []
                      : [Buffer.from(page.map((record) => JSON.stringify(record)).join(separator))],
                }
            })()
        // The service's JSON export is {count, objects}; the count is known only at the end, so
        // it is written in a blank-padded place (JSON allows blanks before a value) filled last.
        const countWidth = 16
        const head = '{"count":'
        fs.writeSync(fd, `${head}${' '.repeat(countWidth)},"objects":[\n`)
        let first = true
        let count = 0
        for await (const page of segments) {
          count += page.records
          for (const segment of page.segments) {
            if (!first) fs.writeSync(fd, separator)
            fs.writeSync(fd, segment)
            first = false
          }
          if (await this.#pause(id)) return
        }
        fs.writeSync(fd, first ? ']}\n' : '\n]}\n')
        fs.writeSync(fd, String(count).padStart(countWidth), head.length)
      }
    } finally {
      fs.closeSync(fd)
    }
  }

  #molfileOf(record: Record<string, unknown>): string {
    if (typeof record.molfile === 'string' && record.molfile !== '') return record.molfile
    const smiles = typeof record.smiles === 'string' ? record.smiles : undefined
    const nested = record.molecule as Record<string, unknown> | undefined
    const structure = smiles ?? (typeof nested?.smiles === 'string' ? nested.smiles : undefined)
    return structure
      ? this.#deps.chem.molblock(structure)
      : '\n  no structure\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n'
  }

  /** Lets other requests run between pages; true when the export was canceled meanwhile. */
  async #pause(id: number): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve))
    return this.#stopped || !this.#renders.has(id)
  }
}
