import { describe, expect, it } from 'vitest'
import { AppError } from '../../shared/app-error.ts'
import { ok } from '../../shared/result.ts'
import type { Dispatch } from '../dispatcher.ts'
import { saveFileName, withDesktopShell, type DesktopShell } from './desktop-shell.ts'

describe('saveFileName', () => {
  it.each([
    ['Molecules', 'csv', 'Molecules.csv'],
    ['Molecules: “aspirin” / filtered', 'sdf', 'Molecules “aspirin” filtered.sdf'],
    ['results.XLSX', 'xlsx', 'results.xlsx'],
    ['a\u0000b\tc\nd', 'jsonl', 'a b c d.jsonl'],
    ['  ...hidden. ', 'csv', 'hidden.csv'],
    ['<>:"/\\|?*', 'csv', 'export.csv'],
    ['CON', 'csv', 'CON export.csv'],
    ['x'.repeat(300), 'csv', `${'x'.repeat(120)}.csv`],
  ] as const)('%j as %s is %j', (suggested, format, expected) => {
    expect(saveFileName(suggested, format)).toBe(expected)
  })
})

describe('withDesktopShell', () => {
  const base: Dispatch = async (channel) => ok(`base answered ${String(channel)}`)
  const chosen: string[] = []
  const shell: DesktopShell = {
    chooseSavePath: async ({ format, suggestedName }) => ({
      path: `/tmp/${suggestedName}.${format}`,
      name: `${suggestedName}.${format}`,
    }),
    showInFolder: async (path) => {
      if (path === '/gone') throw new AppError('not_found', '/gone is no longer there.')
      chosen.push(path)
    },
  }
  const dispatch = withDesktopShell(base, shell)

  it('answers the shell channels itself and passes every other on', async () => {
    expect(await dispatch('app.info', {})).toEqual(ok('base answered app.info'))
    expect(
      await dispatch('app.chooseSavePath', { format: 'csv', suggestedName: ' Plates ' }),
    ).toEqual(ok({ path: '/tmp/Plates.csv', name: 'Plates.csv' }))
    expect(await dispatch('app.showInFolder', { path: '/tmp/Plates.csv' })).toEqual(
      ok({ shown: true }),
    )
    expect(chosen).toEqual(['/tmp/Plates.csv'])
  })

  it('refuses a bad argument as the dispatcher does, and answers errors as values', async () => {
    expect(await dispatch('app.chooseSavePath', { format: 'csv' })).toEqual({
      ok: false,
      error: {
        code: 'invalid_argument',
        message: expect.stringMatching(/^Invalid argument for app.chooseSavePath: suggestedName/),
      },
    })
    expect(await dispatch('app.showInFolder', { path: '/x', extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument' },
    })
    expect(await dispatch('app.showInFolder', { path: '/gone' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: '/gone is no longer there.' },
    })
  })
})

describe('withDesktopShell and a folder dialog', () => {
  const base: Dispatch = async (channel) =>
    channel === 'app.chooseFolder'
      ? { ok: false, error: { code: 'invalid_argument', message: 'no folder dialog here' } }
      : ok(`base answered ${String(channel)}`)
  const asked: unknown[] = []
  const withFolders: DesktopShell = {
    chooseSavePath: async () => null,
    showInFolder: async () => {},
    chooseFolder: async (request) => {
      asked.push(request)
      return request.startAt === '/cancel' ? null : { path: '/mnt/reader/exports' }
    },
  }

  it('answers from the shell that has one, cancel included, after checking the argument', async () => {
    const dispatch = withDesktopShell(base, withFolders)
    expect(await dispatch('app.chooseFolder', { title: ' Folder to watch ' })).toEqual(
      ok({ path: '/mnt/reader/exports' }),
    )
    expect(await dispatch('app.chooseFolder', { title: 'x', startAt: '/cancel' })).toEqual(ok(null))
    expect(asked).toEqual([{ title: 'Folder to watch' }, { title: 'x', startAt: '/cancel' }])
    expect(await dispatch('app.chooseFolder', { title: 'x', startAt: '' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: expect.stringContaining('startAt') },
    })
    expect(asked).toHaveLength(2)
  })

  it('leaves the channel to the services when the shell has no folder dialog', async () => {
    const { chooseFolder: _none, ...withoutFolders } = withFolders
    const dispatch = withDesktopShell(base, withoutFolders)
    expect(await dispatch('app.chooseFolder', { title: 'Folder to watch' })).toEqual({
      ok: false,
      error: { code: 'invalid_argument', message: 'no folder dialog here' },
    })
  })
})
