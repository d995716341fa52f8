/**
 * The plate page's heat map of a 1536-well plate in Chromium (issue 29: "first draw under
 * 100 ms"), over a real cache synced from the simulator's demo vault to which a screening run is
 * added: one 1536-well plate (32 × 48), every well read for two readouts (% Inhibition and Signal),
 * columns 1-2 negative and 47-48 positive controls, about 1% of the samples marked outliers.
 * Measured inside the page with performance.now() and requestAnimationFrame, each
 * `BENCH_HEATMAP_REPETITIONS` times (default 30), p50 and p95:
 *
 * - `plates.heatmap_1536.first_draw_navigation`: from the address changing to the plate's page
 *   (from the plates list) to the end of the frame that shows the heat map drawn: the record read
 *   with its samples and control layouts (not its readout rows nor its batches), `plates.quality`
 *   asked beside it as the page starts (its wells as columns, its batches' names), the map drawn
 *   (its coloured wells written as pixels and put at one go). The plate's layout, its readout
 *   marks, the vault's statistics table and the quality panel are mounted in the task after that
 *   frame, below the map. Goal: p95 under 100 ms.
 * - `plates.heatmap_1536.first_draw_readout_switch`: from choosing the other readout to the end
 *   of the frame that shows it drawn (`plates.quality` asked again, the grid and scale made anew,
 *   the map drawn). Goal: p95 under 100 ms.
 * - `plates.heatmap_1536.redraw_scale_switch`: from choosing the other scale (sequential,
 *   diverging) to the end of the frame that shows it: the renderer's part alone. No goal.
 *
 * Their reference, measured in the same page in the same run: a bare canvas of the map's size
 * made and filled with 1536 rectangles in the colours the map drew (read back from it), to the end
 * of its frame. The ratio says how much the page adds to drawing as such.
 *
 * Then the main side, from the store alone: `plates.quality`'s answer for the plate as the IPC
 * handler gives it (`PlatesService.plate`: a read-only connection of its own, the readouts, the
 * wells, the statistics) and `PlateQueries.plate` on an open connection, each taking turns with
 * a bare SELECT of the same wells' values on an open connection (`plates.quality_1536.*`), in
 * wall time and in the process's CPU time (`*_cpu`). After the first answer, a plate's rows and
 * counts are kept (plate-queries.ts): these are the answers of a page asked again.
 *
 * Every line carries the machine's load average and core count: on shared machines the figures
 * are sizes, not promises. Needs `npm run build` first, and Debian's chromium.
 */
import os from 'node:os'
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { PlateQueries, plateSql } from '../src-main/store/plate-queries.ts'
import { startVaultSim, type VaultSim } from '../src-sim/index.ts'
import {
  insertDetailRow,
  insertProtocol,
  insertReadoutDefinition,
  insertRun,
} from '../src-sim/resources/domain/assay-builder.ts'
import { AppUnderTest } from '../test/e2e/support/app-under-test.ts'
import { percentile, progress, report, type BenchLine } from './report.ts'
import { waitInPage } from './plots.bench.ts'

const repetitions = Math.max(20, Number(process.env.BENCH_HEATMAP_REPETITIONS ?? 30))
const goalMs = 100
const formats = { 384: { rows: 16, columns: 24 }, 1536: { rows: 32, columns: 48 } } as const
const plateRows = formats[1536].rows
const plateColumns = formats[1536].columns
const wellCount = plateRows * plateColumns

/** The plate measured: its readout % Inhibition in its run. */
interface MeasuredPlate {
  plateId: number
  runId: number
  inhibitionId: number
}

export interface ScreeningPlan {
  /** The protocol's name. */
  protocol: string
  size: 384 | 1536
  /** One plate each, named `<prefix>-001` and on; the controls' standard deviation on each. */
  plates: readonly { name: string; controlSd: number }[]
}

export interface ScreeningRun {
  protocolId: number
  runId: number
  inhibitionId: number
  signalId: number
  plateIds: number[]
}

/**
 * Adds a single-point screening protocol with one run to the simulator's main vault, on plates of
 * `size` wells: every well read for % Inhibition and Signal, the first two columns negative and
 * the last two positive controls (spread by the plate's `controlSd`), samples from the vault's
 * batches with some hits, about 1% of them outliers. A fixed pseudo-random sequence: the same
 * plates every time.
 */
export function addScreeningRun(sim: VaultSim, plan: ScreeningPlan): ScreeningRun {
  const db = sim.core.db
  const vaultId = sim.cast.vaults.main.id
  const projectId = sim.cast.projects.kinase.id
  const ownerId = sim.cast.users.writer.id
  const at = sim.clock.nowSeconds() - 2 * 86_400
  const { rows, columns } = formats[plan.size]
  const batchIds = db
    .prepare('SELECT id FROM batches WHERE vault_id = ? ORDER BY id LIMIT 400')
    .pluck()
    .all(vaultId) as number[]
  if (batchIds.length === 0) throw new Error('The demo vault has no batches to put on the plates.')
  let seed = 29
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  /** Centred noise of standard deviation `sd` (three uniforms: bounded, near normal). */
  const noise = (sd: number) => (next() + next() + next() - 1.5) * 2 * sd
  return db.transaction((): ScreeningRun => {
    const protocolId = insertProtocol(db, {
      vaultId,
      name: plan.protocol,
      description: 'Single-point primary screen at 10 uM, ADP-Glo',
      category: 'Biochemical',
      ownerId,
      projectIds: [projectId],
      at,
    })
    const inhibitionId = insertReadoutDefinition(db, protocolId, {
      name: '% Inhibition',
      dataType: 'Number',
      role: 'measured',
      unit: '%',
      precision: 1,
    })
    const signalId = insertReadoutDefinition(db, protocolId, {
      name: 'Signal',
      dataType: 'Number',
      role: 'measured',
      unit: 'RLU',
      precision: 0,
    })
    const runId = insertRun(db, {
      vaultId,
      protocolId,
      projectId,
      runDate: at - (at % 86_400),
      person: 'S. Tanaka',
      place: 'HTS core',
      conditions: 'ATP 10 uM, 0.5% DMSO',
      at,
    })
    const insertPlate = db.prepare(
      `INSERT INTO plates (vault_id, name, location, concentration, volume, size, owner_id, created_at, modified_at)
       VALUES (?, ?, 'Assay plate stack', 10, 5, ?, ?, ?, ?)`,
    )
    const shareOut = db.prepare('INSERT INTO plate_projects (plate_id, project_id) VALUES (?, ?)')
    const insertWell = db.prepare(
      'INSERT INTO plate_wells (plate_id, row, col, batch_id) VALUES (?, ?, ?, ?)',
    )
    const plateIds: number[] = []
    let sample = 0
    for (const { name, controlSd } of plan.plates) {
      const plateId = Number(
        insertPlate.run(vaultId, name, plan.size, ownerId, at, at).lastInsertRowid,
      )
      plateIds.push(plateId)
      shareOut.run(plateId, projectId)
      for (let row = 1; row <= rows; row += 1) {
        for (let col = 1; col <= columns; col += 1) {
          const control = col <= 2 ? '-' : col > columns - 2 ? '+' : null
          const outlier = control === null && next() < 0.01
          const hit = control === null && next() < 0.05
          const inhibition =
            control === '-'
              ? noise(controlSd)
              : control === '+'
                ? 100 + noise(controlSd)
                : (hit ? 40 + next() * 60 : noise(5)) + (outlier ? 60 : 0) + row * 0.05
          const batchId = control === null ? batchIds[sample++ % batchIds.length]! : null
          insertDetailRow(db, {
            vaultId,
            protocolId,
            runId,
            batchId,
            plateId,
            well: { row, col },
            ...(control ? { controlState: control } : {}),
            cells: {
              [inhibitionId]: {
                value: Math.round(inhibition * 10) / 10,
                ...(outlier ? { outlier: true, note: 'dispense error' } : {}),
              },
              [signalId]: { value: Math.round(200_000 * (1 - inhibition / 100) + noise(4000)) },
            },
            at,
          })
          if (batchId !== null) insertWell.run(plateId, row, col, batchId)
        }
      }
    }
    return { protocolId, runId, inhibitionId, signalId, plateIds }
  })()
}

/**
 * Helpers defined in the page: `endOfFrame()` resolves once the current frame has been rendered
 * (a message posted from a requestAnimationFrame callback runs after it); `afterFrame()` after the
 * next one; `drawn(check)` when the heat map's canvas has drawn (its `data-frames` counter moved)
 * and `check(canvas)` holds, with that frame's end. Kept as source text: this file is compiled
 * for Node, without the DOM's types.
 */
const pageHelpers = `
  window.heatBench ??= (() => {
    const endOfFrame = () =>
      new Promise((resolve) => {
        const channel = new MessageChannel()
        channel.port1.onmessage = () => resolve(performance.now())
        channel.port2.postMessage(0)
      })
    const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(endOfFrame())))
    const canvas = () => document.querySelector('[aria-roledescription="plate heat map"] canvas')
    const drawn = (check, timeoutMs = 30000) =>
      new Promise((resolve, reject) => {
        const settle = () => {
          const shown = canvas()
          if (!shown || !check(shown)) return false
          observer.disconnect()
          clearTimeout(timer)
          endOfFrame().then(resolve)
          return true
        }
        const observer = new MutationObserver(settle)
        const timer = setTimeout(() => {
          observer.disconnect()
          reject(new Error('The heat map drew nothing within ' + timeoutMs + ' ms'))
        }, timeoutMs)
        if (!settle()) {
          observer.observe(document.body, {
            subtree: true,
            childList: true,
            attributes: true,
            attributeFilter: ['data-frames', 'aria-label'],
          })
        }
      })
    return { endOfFrame, afterFrame, canvas, drawn }
  })()
`

/** From the address changing to the plate's page to the end of the frame that drew its map. */
const navigationScript = `async ({ plateHash, awayHash, repetitions }) => {
  const { afterFrame, canvas, drawn } = window.heatBench
  const times = []
  for (let index = 0; index < repetitions; index += 1) {
    location.hash = awayHash
    while (canvas()) await afterFrame()
    await afterFrame()
    await afterFrame()
    const started = performance.now()
    const done = drawn((shown) => Number(shown.dataset.frames) > 0)
    location.hash = plateHash
    times.push((await done) - started)
  }
  return times
}`

/**
 * From choosing the other readout (or scale) to the end of the frame that shows it. The readout's
 * name is checked in the map's label, so that a draw of the old readout is not counted.
 */
const switchScript = `async ({ repetitions, what }) => {
  const { afterFrame, canvas, drawn } = window.heatBench
  const surface = () => document.querySelector('[aria-roledescription="plate heat map"]')
  const times = []
  for (let index = 0; index < repetitions; index += 1) {
    await afterFrame()
    await afterFrame()
    const before = canvas().dataset.frames
    let change
    let shows
    if (what === 'readout') {
      const select = [...document.querySelectorAll('label')]
        .find((label) => label.textContent.trim().startsWith('Readout'))
        .querySelector('select')
      const option = [...select.options].find((option) => option.value !== select.value)
      const name = option.textContent.trim().replace(/ \\(.*$/, '')
      shows = () => surface().getAttribute('aria-label').startsWith(name + ' over')
      change = () => {
        select.value = option.value
        select.dispatchEvent(new Event('change', { bubbles: true }))
      }
    } else {
      const radio = [...document.querySelectorAll('input[type="radio"][name^="plate-scale-"]')].find(
        (input) => !input.checked,
      )
      shows = () => true
      change = () => radio.click()
    }
    const started = performance.now()
    const done = drawn((shown) => shown.dataset.frames !== before && shows())
    change()
    times.push((await done) - started)
  }
  return times
}`

/**
 * The reference: a bare canvas of the map's size, made and filled with one rectangle per well in
 * the colours the map drew (read back from inside each well, clear of its marks), to the end of
 * its frame.
 */
const bareScript = `async ({ repetitions, rows, columns }) => {
  const { afterFrame, endOfFrame, canvas } = window.heatBench
  const map = canvas()
  const ratio = window.devicePixelRatio || 1
  const cssWidth = map.width / ratio
  const cssHeight = map.height / ratio
  // heat-map.ts's geometry for more than 24 columns: 12-pixel wells, 1-pixel gaps, a 24-pixel axis.
  const cell = 12
  const pitch = 13
  const axis = 24
  const pixels = map.getContext('2d').getImageData(0, 0, map.width, map.height)
  const styles = []
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      const x = Math.round((axis + column * pitch + cell * 0.3) * ratio)
      const y = Math.round((axis + row * pitch + cell * 0.6) * ratio)
      const at = (y * map.width + x) * 4
      const [r, g, b] = pixels.data.slice(at, at + 3)
      styles.push('#' + [r, g, b].map((channel) => channel.toString(16).padStart(2, '0')).join(''))
    }
  }
  const times = []
  for (let index = 0; index < repetitions; index += 1) {
    await afterFrame()
    const started = performance.now()
    const bare = document.createElement('canvas')
    bare.width = map.width
    bare.height = map.height
    bare.style.cssText =
      'position: fixed; left: 0; top: 0; width: ' + cssWidth + 'px; height: ' + cssHeight + 'px'
    document.body.append(bare)
    const context = bare.getContext('2d')
    context.setTransform(ratio, 0, 0, ratio, 0, 0)
    let well = 0
    for (let row = 0; row < rows; row += 1) {
      for (let column = 0; column < columns; column += 1) {
        context.fillStyle = styles[well++]
        context.fillRect(axis + column * pitch, axis + row * pitch, cell, cell)
      }
    }
    times.push((await endOfFrame()) - started)
    bare.remove()
  }
  return { times, colours: new Set(styles).size }
}`

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b)
const round = (value: number) => Math.round(value * 1000) / 1000
const load = () => os.loadavg().map((value) => Math.round(value * 100) / 100)

function summary(values: readonly number[]) {
  const ordered = sorted(values)
  return {
    p50: percentile(ordered, 0.5),
    p95: percentile(ordered, 0.95),
    min: ordered[0] ?? Number.NaN,
    max: ordered[ordered.length - 1] ?? Number.NaN,
  }
}

function line(
  name: string,
  measured: readonly number[],
  reference: string,
  referenceTimes: readonly number[],
  goal: number | null,
  extra: Record<string, unknown> = {},
): BenchLine {
  const value = summary(measured)
  const bare = summary(referenceTimes)
  return {
    name,
    value: round(value.p95),
    unit: 'ms',
    reference,
    referenceValue: round(bare.p95),
    ratio: round(value.p95 / bare.p95),
    ...(goal === null ? {} : { goal: `p95 under ${goal} ms`, met: value.p95 < goal }),
    p50: round(value.p50),
    min: round(value.min),
    max: round(value.max),
    referenceP50: round(bare.p50),
    samples: measured.length,
    wells: wellCount,
    loadAverage: load(),
    cpus: os.availableParallelism(),
    ...extra,
  }
}

/** Measures the plate page open in `page` (the plate's map drawn) and returns the lines. */
export async function measureHeatMap(
  page: Page,
  plate: MeasuredPlate,
): Promise<{ lines: BenchLine[]; bare: number[] }> {
  await page.evaluate(pageHelpers)
  const plateHash = `#/plates/${plate.plateId}`
  const navigation = (await page.evaluate(
    `(${navigationScript})(${JSON.stringify({
      plateHash,
      awayHash: '#/plates',
      repetitions,
    })})`,
  )) as number[]
  progress(`navigation: p50 ${round(summary(navigation).p50)} ms`)
  const readout = (await page.evaluate(
    `(${switchScript})(${JSON.stringify({ repetitions, what: 'readout' })})`,
  )) as number[]
  progress(`readout switch: p50 ${round(summary(readout).p50)} ms`)
  const scale = (await page.evaluate(
    `(${switchScript})(${JSON.stringify({ repetitions, what: 'scale' })})`,
  )) as number[]
  progress(`scale switch: p50 ${round(summary(scale).p50)} ms`)
  const bare = (await page.evaluate(
    `(${bareScript})(${JSON.stringify({ repetitions, rows: plateRows, columns: plateColumns })})`,
  )) as { times: number[]; colours: number }
  progress(`bare canvas: p50 ${round(summary(bare.times).p50)} ms`)
  const reference = `bare canvas of the map's size, ${wellCount} fillRects in the map's colours, to the end of its frame, p95`
  const colours = { bareColours: bare.colours }
  return {
    bare: bare.times,
    lines: [
      line(
        'plates.heatmap_1536.first_draw_navigation',
        navigation,
        reference,
        bare.times,
        goalMs,
        colours,
      ),
      line(
        'plates.heatmap_1536.first_draw_readout_switch',
        readout,
        reference,
        bare.times,
        goalMs,
        colours,
      ),
      line('plates.heatmap_1536.redraw_scale_switch', scale, reference, bare.times, null, colours),
    ],
  }
}

/**
 * `plates.quality` for the plate from the store alone, taking turns with a bare SELECT of the
 * same wells' values; the answers' well counts checked equal.
 */
export function measureQuality(
  app: AppUnderTest,
  connectionId: string,
  vaultId: number,
  plate: MeasuredPlate,
): BenchLine[] {
  const file = app.services.runtimes.get(connectionId).cache.file
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const queries = new PlateQueries(db)
    const bareSelect = db
      .prepare(
        `SELECT v.well, v.number, v.control_state, v.outlier
           FROM readout_rows r
           CROSS JOIN readout_values v ON v.vault_id = r.vault_id AND v.row_id = r.id
          WHERE r.vault_id = ? AND r.plate_id = ? AND v.definition_id = ?`,
      )
      .raw()
    const question = { definitionId: plate.inhibitionId, runId: plate.runId }
    const service: number[] = []
    const store: number[] = []
    const bare: number[] = []
    // CPU rather than wall time: what the main process spends, whatever else the machine runs.
    const serviceCpu: number[] = []
    const storeCpu: number[] = []
    const bareCpu: number[] = []
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since)
      return (used.user + used.system) / 1000
    }
    const counts = new Set<number>()
    for (let index = 0; index < repetitions + 3; index += 1) {
      let started = performance.now()
      let cpu = process.cpuUsage()
      const answer = app.services.plates.plate(connectionId, vaultId, plate.plateId, question)
      const serviceMs = performance.now() - started
      const serviceCpuMs = cpuMs(cpu)
      started = performance.now()
      cpu = process.cpuUsage()
      const fromStore = queries.plate(vaultId, plate.plateId, question)
      const storeMs = performance.now() - started
      const storeCpuMs = cpuMs(cpu)
      started = performance.now()
      cpu = process.cpuUsage()
      const rows = bareSelect.all(vaultId, plate.plateId, plate.inhibitionId)
      const bareMs = performance.now() - started
      const bareCpuMs = cpuMs(cpu)
      counts.add(answer.chosen?.wells.rowId.length ?? -1)
      counts.add(fromStore.chosen?.wells.rowId.length ?? -1)
      counts.add(rows.length)
      // The first rounds warm the statements and the page cache.
      if (index < 3) continue
      service.push(serviceMs)
      store.push(storeMs)
      bare.push(bareMs)
      serviceCpu.push(serviceCpuMs)
      storeCpu.push(storeCpuMs)
      bareCpu.push(bareCpuMs)
    }
    if (counts.size !== 1 || !counts.has(wellCount)) {
      throw new Error(`The answers disagree on the plate's wells: ${[...counts].join(', ')}.`)
    }
    const reference = `bare SELECT of the plate's ${wellCount} values on an open connection, p95`
    const planOf = (sql: string, ...parameters: unknown[]) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...parameters)
        .map((step) => (step as { detail: string }).detail)
    const plan = {
      layout: planOf(plateSql.plateLayout, vaultId, plate.plateId),
      cells: planOf(plateSql.plateCells, vaultId, plate.plateId, plate.inhibitionId, plate.runId),
    }
    const referenceCpu = `the same bare SELECT's CPU time, p95`
    return [
      line('plates.quality_1536.service', service, reference, bare, null, { plan }),
      line('plates.quality_1536.store', store, reference, bare, null),
      line('plates.quality_1536.service_cpu', serviceCpu, referenceCpu, bareCpu, null),
      line('plates.quality_1536.store_cpu', storeCpu, referenceCpu, bareCpu, null),
    ]
  } finally {
    db.close()
  }
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

async function settleStructureIndex(app: AppUnderTest, connectionId: string, vaultId: number) {
  const deadline = Date.now() + 600_000
  for (;;) {
    const state = await app.services.chem.indexState(connectionId, vaultId)
    if (!state.building && state.detailsPending === 0 && state.indexed === state.total) return
    if (Date.now() > deadline) {
      progress(`the structure index is still building (${state.indexed} of ${state.total})`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

if (import.meta.main) {
  progress(`load average ${load().join(', ')} on ${os.availableParallelism()} cores`)
  const sim = await startVaultSim({
    port: 0,
    seed: 'demo',
    exportTiming: { startDelayMs: 0, durationMs: 0 },
  })
  let app: AppUnderTest | undefined
  try {
    const screen = addScreeningRun(sim, {
      protocol: 'Kinase HTS (1536)',
      size: 1536,
      plates: [{ name: 'HTS-1536-001', controlSd: 3 }],
    })
    const plate = {
      plateId: screen.plateIds[0]!,
      runId: screen.runId,
      inhibitionId: screen.inhibitionId,
    }
    const vaultId = sim.cast.vaults.main.id
    app = await AppUnderTest.start({ pull: { exportThreshold: Number.POSITIVE_INFINITY } })
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token: sim.cast.users.admin.tokens[0]!,
      sessionOnly: true,
    })
    const connectionId = added.connection.id
    progress('syncing the demo vault with its 1536-well plate')
    const running = app
    await until(
      'the first sync has completed',
      () =>
        running.services.sync.states().find((state) => state.connectionId === connectionId)
          ?.lastOutcome === 'completed',
      300_000,
    )
    app.services.runtimes.get(connectionId).cache.readoutIndex().complete()
    // The structure index builds after a first sync, on the main thread too: measured beside
    // it, the page would time the chemistry.
    await settleStructureIndex(app, connectionId, vaultId)
    const { page, context } = await app.open(`#/plates/${plate.plateId}`)
    await waitInPage(
      page,
      `Number(document.querySelector('[aria-roledescription="plate heat map"] canvas')?.dataset.frames ?? 0) > 0`,
      120_000,
    )
    const rows = await page.evaluate(
      `document.querySelector('[aria-roledescription="plate heat map"] canvas').dataset.rows`,
    )
    if (rows !== String(plateRows)) throw new Error(`The map has ${String(rows)} rows, not 32.`)
    progress(`measuring the heat map, ${repetitions} times each`)
    const { lines } = await measureHeatMap(page, plate)
    for (const result of lines) report(result)
    await context.close()
    for (const result of measureQuality(app, connectionId, vaultId, plate)) report(result)
  } finally {
    await app?.stop()
    await sim.stop()
  }
}
