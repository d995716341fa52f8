import { describe, expect, it } from 'vitest'
import { AppError, toErrorValue } from '../../shared/app-error.ts'
import { fail, ok } from '../../shared/result.ts'
import { withDesktopShell, type DesktopShell } from '../app/desktop-shell.ts'
import type { Dispatch } from '../dispatcher.ts'

/** `attachments.open` through a host's shell: the services say where, the shell opens. */
describe('opening an attachment with the system’s application', () => {
  const asked: unknown[] = []
  const services: Dispatch = async (channel, args) => {
    asked.push([channel, args])
    if (channel !== 'attachments.localPath') return fail({ code: 'internal', message: 'no' })
    const { fileId } = args as { fileId: number }
    if (fileId === 2) {
      return fail(toErrorValue(new AppError('forbidden', 'Vault Desk does not open .exe files.')))
    }
    return ok({ path: `/data/attachments/c/contents/1-${fileId}.pdf` })
  }
  const opened: string[] = []
  const shell: DesktopShell = {
    chooseSavePath: async () => null,
    showInFolder: async () => {},
    openFile: async (path) => {
      opened.push(path)
    },
  }

  it('opens the path the services give, and only that', async () => {
    const dispatch = withDesktopShell(services, shell)
    const args = { connectionId: 'c', vaultId: 1, fileId: 7 }
    expect(await dispatch('attachments.open', args)).toEqual(ok({ opened: true }))
    expect(asked).toEqual([['attachments.localPath', args]])
    expect(opened).toEqual(['/data/attachments/c/contents/1-7.pdf'])
  })

  it('passes on the services’ refusal without opening anything', async () => {
    opened.length = 0
    const dispatch = withDesktopShell(services, shell)
    const answer = await dispatch('attachments.open', { connectionId: 'c', vaultId: 1, fileId: 2 })
    expect(answer).toMatchObject({ ok: false, error: { code: 'forbidden' } })
    expect(opened).toEqual([])
  })

  it('leaves the channel to the services where the shell cannot open files', async () => {
    asked.length = 0
    const dispatch = withDesktopShell(services, { ...shell, openFile: undefined })
    await dispatch('attachments.open', { connectionId: 'c', vaultId: 1, fileId: 7 })
    expect(asked).toEqual([['attachments.open', { connectionId: 'c', vaultId: 1, fileId: 7 }]])
  })
})
