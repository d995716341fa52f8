import { beforeEach, describe, expect, it, vi } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import { describeStartupFailure, showStartupFailure } from './startup-failure-dialog.ts'
import { fakeElectron, resetFakeElectron } from './test-support/fake-electron.ts'

vi.mock('electron', async () => (await import('./test-support/fake-electron.ts')).fakeElectron)

const copyError = 0
const quit = 1

beforeEach(() => resetFakeElectron())

describe('describeStartupFailure', () => {
  it('names the database for storage errors and puts the whole chain in the report', () => {
    const cause = new Error('SQLITE_CORRUPT: database disk image is malformed')
    const error = new AppError('storage', 'the app database at /data/app.db is unusable', { cause })
    const failure = describeStartupFailure(error, '1.2.3')
    expect(failure.message).toBe('Vault Desk cannot open its database.')
    expect(failure.detail).toContain('the app database at /data/app.db is unusable')
    expect(failure.detail).toContain('Nothing has been deleted.')
    expect(failure.report).toContain('Vault Desk 1.2.3')
    expect(failure.report).toContain(`on ${process.platform} ${process.arch}`)
    expect(failure.report).toContain('AppError: the app database at /data/app.db is unusable')
    expect(failure.report).toContain(
      'Caused by: Error: SQLITE_CORRUPT: database disk image is malformed',
    )
  })

  it('describes any other failure as a failure to start', () => {
    const failure = describeStartupFailure(new TypeError('boom'), '1.2.3')
    expect(failure.message).toBe('Vault Desk could not start.')
    expect(failure.detail).toContain('boom')
  })

  it('copes with thrown values that are not errors and with cyclic causes', () => {
    expect(describeStartupFailure('disk unplugged', '1.2.3').report).toContain('disk unplugged')
    const cyclic = new Error('outer')
    cyclic.cause = cyclic
    const report = describeStartupFailure(cyclic, '1.2.3').report
    expect(report).toContain('Error: outer')
    expect(report).not.toContain('Caused by')
  })
})

describe('showStartupFailure', () => {
  const failure = { message: 'cannot open', detail: 'details', report: 'full report' }

  it('shows an error dialog offering Copy error and Quit, Quit by default', async () => {
    fakeElectron.dialog.responses.push(quit)
    await showStartupFailure(failure)
    expect(fakeElectron.dialog.showMessageBox).toHaveBeenCalledOnce()
    expect(fakeElectron.dialog.showMessageBox).toHaveBeenCalledWith(
      expect.objectContaining({
        type: 'error',
        message: 'cannot open',
        detail: 'details',
        buttons: ['Copy error', 'Quit'],
        defaultId: quit,
        cancelId: quit,
      }),
    )
    expect(fakeElectron.clipboard.writeText).not.toHaveBeenCalled()
  })

  it('copies the full report and shows the dialog again after each copy', async () => {
    fakeElectron.dialog.responses.push(copyError, copyError, quit)
    await showStartupFailure(failure)
    expect(fakeElectron.clipboard.writeText).toHaveBeenCalledTimes(2)
    expect(fakeElectron.clipboard.writeText).toHaveBeenCalledWith('full report')
    expect(fakeElectron.dialog.showMessageBox).toHaveBeenCalledTimes(3)
  })

  it('treats closing the dialog (Escape) as Quit', async () => {
    await showStartupFailure(failure)
    expect(fakeElectron.dialog.showMessageBox).toHaveBeenCalledOnce()
  })
})
