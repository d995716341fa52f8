import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { VaultClient } from '../../src-main/api/client.ts'
import { LimiterRegistry } from '../../src-main/api/limiter-registry.ts'
import type { AttachmentView } from '../../src-main/services/attachments-service.ts'
import { startVaultSim, type VaultSim } from '../../src-sim/index.ts'
import { buildDoseResponse, type DoseResponseFixture } from '../sim/domain/assay-fixture.ts'
import { requirement } from '../support/environment.ts'
import { smallPdf } from '../support/small-pdf.ts'
import { AppUnderTest, artifactsDir } from './support/app-under-test.ts'
import { chromiumInstalled } from './support/chromium.ts'

const available = requirement(chromiumInstalled(), 'Chromium (/usr/bin/chromium)')

/** Chromium's PDF viewer: the extension that shows a PDF in a frame. */
const pdfViewerOrigin = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/'

/** Waits until `check` holds (hooks cannot use expect.poll). */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe.runIf(available)('attachment previews in Chromium', () => {
  let sim: VaultSim
  let app: AppUnderTest
  let assay: DoseResponseFixture
  let connectionId: string
  let vaultId: number
  let simStopped = false
  const sourceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-preview-sources-'))
  const documentTitle = 'Kinase panel report, run 7'
  const report = smallPdf(documentTitle, ['IC50 summary', 'Plate layouts', 'Raw reads'])
  const reportName = 'panel report.pdf'
  const notPdfName = 'scan.pdf'

  beforeAll(async () => {
    sim = await startVaultSim({
      port: 0,
      seed: 16,
      exportTiming: { startDelayMs: 0, durationMs: 0 },
    })
    vaultId = sim.cast.vaults.main.id
    const token = sim.cast.users.admin.tokens[0]!
    assay = buildDoseResponse(sim, {
      projectId: sim.cast.projects.kinase.id,
      name: 'Kinase panel',
      curves: [],
    })
    const client = new VaultClient({ baseUrl: sim.baseUrl, token, limiters: new LimiterRegistry() })
    for (const [name, bytes] of [
      [reportName, report],
      // Called a PDF by its name, but not one: the window must say so, not show a broken viewer.
      [notPdfName, Buffer.from('GIF89a not a pdf at all')],
    ] as const) {
      const source = path.join(sourceDir, name)
      fs.writeFileSync(source, bytes)
      await client.files.attach(vaultId, {
        file: source,
        resource_class: 'run',
        resource_id: assay.runId,
      })
    }
    app = await AppUnderTest.start()
    const added = await app.services.connections.add({
      name: 'Lab',
      baseUrl: sim.baseUrl,
      token,
      sessionOnly: true,
    })
    connectionId = added.connection.id
    await until(
      'the first sync has completed',
      () =>
        app.services.sync.states().find((state) => state.connectionId === connectionId)
          ?.lastOutcome === 'completed',
      110_000,
    )
    // Sync fetches the run's files in the background once it has completed.
    const fetched = async () =>
      (await app.services.attachments.forRecord(connectionId, vaultId, 'runs', assay.runId)).filter(
        (view) => view.state === 'fetched',
      ).length
    const deadline = Date.now() + 60_000
    while ((await fetched()) < 2) {
      if (Date.now() > deadline) throw new Error('Timed out waiting for the run’s files.')
      await app.services.attachments.fetchInBackground(connectionId)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }, 180_000)

  afterAll(async () => {
    await app?.stop()
    if (!simStopped) await sim?.stop()
    fs.rmSync(sourceDir, { recursive: true, force: true })
  })

  async function runPage(): Promise<{ page: Page; problems: () => Promise<string[]> }> {
    const session = await app.open(`#/runs/${assay.runId}`)
    await session.page.getByRole('table', { name: 'Files' }).waitFor()
    return session
  }

  it('says a file called a PDF that is not one cannot be previewed, and why', async () => {
    const { page, problems } = await runPage()
    const row = page.getByRole('table', { name: 'Files' }).getByRole('row', { name: /scan\.pdf/ })
    await row.getByText('On this computer').waitFor()
    await row.getByRole('button', { name: 'Preview' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: `${notPdfName} is not a PDF document` })
      .waitFor()
    expect(await page.getByTitle(`PDF preview of ${notPdfName}`).count()).toBe(0)
    expect(await problems()).toEqual([])
  })

  it('says so, and downloads nothing, where the browser has no PDF viewer', async () => {
    const { page, problems } = await runPage()
    // As a browser without a PDF viewer (or one that has it turned off) reports it.
    await page.addInitScript({
      content: `Object.defineProperty(Navigator.prototype, 'pdfViewerEnabled', { get: () => false })`,
    })
    await page.reload()
    let downloads = 0
    page.on('download', () => downloads++)
    const row = page
      .getByRole('table', { name: 'Files' })
      .getByRole('row', { name: /panel report/ })
    await row.getByRole('button', { name: 'Preview' }).click()
    await page
      .getByText(`This window has no PDF viewer, so ${reportName} cannot be shown here`)
      .waitFor()
    expect(await page.locator('iframe').count()).toBe(0)
    expect(downloads).toBe(0)
    expect(await problems()).toEqual([])
  })

  it('shows a run’s PDF in Chromium’s viewer from the fetched copy, the vault gone', async () => {
    const fetched = (
      await app.services.attachments.forRecord(connectionId, vaultId, 'runs', assay.runId)
    ).find((view: AttachmentView) => view.name === reportName)
    expect(fetched).toMatchObject({ state: 'fetched', size: report.length, previewable: true })

    // Nothing is asked of the vault from here on.
    await sim.stop()
    simStopped = true
    const { page, problems } = await runPage()
    const row = page
      .getByRole('table', { name: 'Files' })
      .getByRole('row', { name: /panel report/ })
    await row.getByText('On this computer').waitFor()
    await row.getByRole('button', { name: 'Preview' }).click()
    const frame = page.getByTitle(`PDF preview of ${reportName}`)
    await frame.waitFor()
    expect(await frame.evaluate((element) => element.tagName)).toBe('IFRAME')
    expect(await frame.getAttribute('src')).toMatch(/^blob:/)

    // The viewer read the document: its frame carries the PDF's own title and page count.
    await expect
      .poll(
        async () => {
          const viewer = page.frames().find((each) => each.url().startsWith(pdfViewerOrigin))
          return viewer ? await viewer.title() : null
        },
        { timeout: 20_000 },
      )
      .toBe(documentTitle)
    const viewer = page.frames().find((each) => each.url().startsWith(pdfViewerOrigin))!
    await expect
      .poll(
        async () =>
          (
            await viewer
              .locator('viewer-page-selector')
              .first()
              .evaluate((element) => element.shadowRoot?.textContent ?? element.textContent ?? '')
          ).replace(/\s+/g, ' '),
        { timeout: 20_000 },
      )
      .toContain('/ 3')
    fs.mkdirSync(artifactsDir, { recursive: true })
    await frame.scrollIntoViewIfNeeded()
    await page.screenshot({ path: path.join(artifactsDir, 'attachment-preview-pdf.png') })

    // Closing the preview takes the frame away (and gives the blob back).
    await row.getByRole('button', { name: 'Preview' }).click()
    await frame.waitFor({ state: 'detached' })
    // No CSP violation, console error or failed request; the screen passes the accessibility gate.
    expect(await problems()).toEqual([])
  })
})
