/**
 * The whole app as a person would run it in a browser: real services on a temporary data folder,
 * the browser harness serving the built renderer, and Chromium.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { createDispatcher } from '../../../src-main/ipc/dispatcher.ts'
import { createHandlers } from '../../../src-main/ipc/handlers.ts'
import {
  createServices,
  type ServiceOptions,
  type Services,
} from '../../../src-main/services/index.ts'
import { makeTreePrivate } from '../../../src-main/shared/private-files.ts'
import { startHarness, type Harness } from '../../../src-main/web/harness.ts'
import { copyDemoSnapshot } from '../../support/demo-snapshot.ts'
import { launchChromium, watchForProblems } from './chromium.ts'

export const rendererDir = path.resolve(import.meta.dirname, '../../../out/renderer')
export const artifactsDir = path.resolve(import.meta.dirname, '../../../test-artifacts')

export class AppUnderTest {
  readonly services: Services
  readonly harness: Harness
  readonly browser: Browser
  readonly dataDir: string

  private constructor(services: Services, harness: Harness, browser: Browser, dataDir: string) {
    this.services = services
    this.harness = harness
    this.browser = browser
    this.dataDir = dataDir
  }

  /**
   * `services` adds to the options of the real services (a test may tune how sync pulls).
   * `seededDemoVault` puts a copy of the demo seed where "Open the demo vault" keeps its vault,
   * as after an earlier run of the app, for suites whose subject is not the demo's first seeding:
   * the button then opens it in a fraction of a second instead of seeding it for seconds.
   * `prepare` leaves what a test needs in the data folder before the services start (a damaged
   * file, a lock held).
   */
  static async start(
    services: Omit<ServiceOptions, 'host' | 'dataDir'> = {},
    {
      seededDemoVault = false,
      prepare,
    }: { seededDemoVault?: boolean; prepare?: (dataDir: string) => Promise<void> | void } = {},
  ): Promise<AppUnderTest> {
    if (!fs.existsSync(path.join(rendererDir, 'index.html'))) {
      throw new Error(`No built renderer in ${rendererDir}: run \`npm run build\` first.`)
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-e2e-'))
    if (seededDemoVault) {
      const demoFolder = path.join(dataDir, 'demo-vault')
      await copyDemoSnapshot(path.join(demoFolder, 'vault.db'))
      makeTreePrivate(demoFolder)
    }
    await prepare?.(dataDir)
    const running = createServices({ ...services, host: 'web', dataDir })
    const harness = await startHarness({
      dispatch: createDispatcher(createHandlers(running), running.log),
      events: running.events,
      rendererDir,
      log: running.log.child({ component: 'harness' }),
    })
    const browser = await launchChromium()
    fs.mkdirSync(artifactsDir, { recursive: true })
    return new AppUnderTest(running, harness, browser, dataDir)
  }

  /**
   * A fresh page on `hash`, with its problems (console errors, CSP violations) collected. It opens
   * the harness's token address, as a person opens the one `npm run preview:web` prints; the page
   * then sits on `harness.pageUrl` with the hash.
   */
  async open(
    hash = '',
    options: { colorScheme?: 'light' | 'dark' } = {},
  ): Promise<{ page: Page; context: BrowserContext; problems: () => Promise<string[]> }> {
    const context = await this.browser.newContext({
      viewport: { width: 1280, height: 800 },
      colorScheme: options.colorScheme ?? 'light',
      reducedMotion: 'reduce',
    })
    const page = await context.newPage()
    const problems = await watchForProblems(page)
    await page.goto(`${this.harness.url}${hash}`)
    return { page, context, problems }
  }

  /**
   * Saves a connection with no token, as a session-only connection is after a restart, and tells
   * the pages. Written straight to the app database: adding one through the services needs a
   * vault that accepts its token.
   */
  addConnection(connection: { id: string; name: string; baseUrl: string }): void {
    this.#withAppDatabase((db) =>
      db
        .prepare('INSERT INTO connections (id, name, base_url, created_at) VALUES (?, ?, ?, ?)')
        .run(connection.id, connection.name, connection.baseUrl, new Date().toISOString()),
    )
    this.services.events.emit('connections.changed', { connectionIds: [connection.id] })
  }

  removeConnection(id: string): void {
    this.#withAppDatabase((db) => db.prepare('DELETE FROM connections WHERE id = ?').run(id))
    this.services.events.emit('connections.changed', { connectionIds: [id] })
  }

  screenshotPath(name: string): string {
    return path.join(artifactsDir, name)
  }

  async stop(): Promise<void> {
    await this.browser.close()
    await this.harness.close()
    await this.services.close()
    fs.rmSync(this.dataDir, { recursive: true, force: true })
  }

  #withAppDatabase(work: (db: Database.Database) => void): void {
    const db = new Database(path.join(this.dataDir, 'app.db'))
    try {
      work(db)
    } finally {
      db.close()
    }
  }
}
