import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../shared/logger.ts'
import {
  FolderWatcher,
  isTemporaryName,
  isWatchedName,
  type FileHandling,
  type SettledFile,
  type WatcherNotice,
} from './watcher.ts'

/**
 * The folder watcher against files written the way instruments write them: in chunks with pauses,
 * under temporary names, renamed, in folders that come and go. Settle times are short here; the
 * test waits (generously) for outcomes and never for a time.
 */

let root: string
let folder: string
const watchers: FolderWatcher[] = []

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-watcher-'))
  folder = path.join(root, 'instrument')
  fs.mkdirSync(folder)
})

afterEach(async () => {
  await Promise.all(watchers.splice(0).map((watcher) => watcher.stop()))
  fs.rmSync(root, { recursive: true, force: true })
})

interface Handed extends SettledFile {
  /** The file's bytes when it was handed over. */
  content: string
}

function watch(options: { settleMs?: number; onFile?: (file: SettledFile) => FileHandling } = {}) {
  const handed: Handed[] = []
  const notices: WatcherNotice[] = []
  const watcher = new FolderWatcher({
    folder,
    settleMs: options.settleMs ?? 300,
    scanMs: 150,
    onFile: async (file) => {
      handed.push({ ...file, content: fs.readFileSync(file.path, 'utf8') })
      return options.onFile?.(file) ?? 'done'
    },
    onNotice: (notice) => notices.push(notice),
    log: silentLogger,
  })
  watchers.push(watcher)
  watcher.start()
  return { watcher, handed, notices }
}

async function waitUntil(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`)
    await pause(20)
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

const rows = Array.from({ length: 12 }, (_, index) => `CCO,Compound ${index},${index * 1.5}\n`)

/** Writes a CSV the way a plate reader does: a header, then rows in chunks with pauses. */
async function writeSlowly(file: string, pauseMs = 60): Promise<string> {
  const handle = await fs.promises.open(file, 'w')
  let written = 'SMILES,Compound,Value\n'
  await handle.write(written)
  for (const row of rows) {
    await pause(pauseMs)
    await handle.write(row)
    written += row
  }
  await handle.close()
  return written
}

describe('FolderWatcher', () => {
  // Pauses between writes are far shorter than the settle time, even on a loaded machine.
  it('hands over a file written slowly once, complete, after it has stopped changing', async () => {
    const { handed, watcher } = watch({ settleMs: 1_500 })
    const file = path.join(folder, 'plate-1.csv')
    const content = await writeSlowly(file)
    await waitUntil('the file is handed over', () => handed.length > 0)
    // More scans change nothing: the same file at the same size and time is not handed again.
    await watcher.scanNow()
    await watcher.scanNow()
    expect(handed).toHaveLength(1)
    expect(handed[0]).toMatchObject({ name: 'plate-1.csv', size: Buffer.byteLength(content) })
    expect(handed[0]!.content).toBe(content)
  })

  it('hands over a file again once it changes after it was taken', async () => {
    const { handed } = watch()
    const file = path.join(folder, 'plate-2.csv')
    fs.writeFileSync(file, 'SMILES,Compound\nCCO,A\n')
    await waitUntil('the first version is handed over', () => handed.length === 1)
    fs.appendFileSync(file, 'CCN,B\n')
    await waitUntil('the second version is handed over', () => handed.length === 2)
    expect(handed[1]!.content).toBe('SMILES,Compound\nCCO,A\nCCN,B\n')
  })

  it('follows a file renamed while it is written, and takes only the final name', async () => {
    const { handed } = watch({ settleMs: 1_500 })
    const first = path.join(folder, 'acquiring.csv')
    const final = path.join(folder, 'run-0042.csv')
    const handle = await fs.promises.open(first, 'w')
    await handle.write('SMILES,Compound,Value\n')
    await handle.write(rows[0]!)
    await pause(60)
    await fs.promises.rename(first, final)
    for (const row of rows.slice(1)) {
      await pause(60)
      await handle.write(row)
    }
    await handle.close()
    await waitUntil('the renamed file is handed over', () => handed.length > 0)
    expect(handed.map((file) => file.name)).toEqual(['run-0042.csv'])
    expect(handed[0]!.content).toBe(`SMILES,Compound,Value\n${rows.join('')}`)
  })

  it('leaves temporary and hidden files alone, and reports other types once', async () => {
    const { handed, notices, watcher } = watch()
    for (const name of [
      '.hidden.csv',
      '~$book.xlsx',
      'run.csv.part',
      'export.tmp',
      'backup.csv~',
      'notes.docx',
    ]) {
      fs.writeFileSync(path.join(folder, name), 'SMILES\nCCO\n')
    }
    fs.mkdirSync(path.join(folder, 'old.csv'))
    fs.writeFileSync(path.join(folder, 'hits.SDF'), 'mol\n$$$$\n')
    await waitUntil('the SD file is handed over', () => handed.length > 0)
    await watcher.scanNow()
    await watcher.scanNow()
    expect(handed.map((file) => file.name)).toEqual(['hits.SDF'])
    expect(notices).toEqual([{ type: 'ignored', name: 'notes.docx', reason: 'type' }])
  })

  it('waits for an empty file to be written, reporting it once', async () => {
    const { handed, notices, watcher } = watch()
    const file = path.join(folder, 'pending.csv')
    fs.writeFileSync(file, '')
    await waitUntil('the empty file is reported', () => notices.length > 0)
    await watcher.scanNow()
    expect(notices).toEqual([{ type: 'ignored', name: 'pending.csv', reason: 'empty' }])
    expect(handed).toEqual([])
    fs.writeFileSync(file, 'SMILES\nCCO\n')
    await waitUntil('the written file is handed over', () => handed.length > 0)
    expect(handed[0]!.content).toBe('SMILES\nCCO\n')
  })

  it('says when the folder is removed, keeps looking, and watches it again when it is back', async () => {
    const { handed, notices } = watch()
    fs.writeFileSync(path.join(folder, 'before.csv'), 'SMILES\nCCO\n')
    await waitUntil('the first file is handed over', () => handed.length === 1)
    fs.rmSync(folder, { recursive: true })
    await waitUntil('the folder is said to be missing', () =>
      notices.some((notice) => notice.type === 'folder-missing'),
    )
    expect(notices.find((notice) => notice.type === 'folder-missing')).toEqual({
      type: 'folder-missing',
      message: `${folder} is gone: watching for it to come back.`,
    })
    fs.mkdirSync(folder)
    await waitUntil('the folder is said to be back', () =>
      notices.some((notice) => notice.type === 'folder-back'),
    )
    fs.writeFileSync(path.join(folder, 'after.csv'), 'SMILES\nCCN\n')
    await waitUntil('the new file is handed over', () => handed.length === 2)
    expect(handed.map((file) => file.name)).toEqual(['before.csv', 'after.csv'])
    expect(notices.filter((notice) => notice.type === 'folder-missing')).toHaveLength(1)
  })

  it('starts on a folder that does not exist yet and takes files once it appears', async () => {
    fs.rmSync(folder, { recursive: true })
    const { handed, notices } = watch()
    await waitUntil('the folder is said to be missing', () => notices.length > 0)
    fs.mkdirSync(folder)
    fs.writeFileSync(path.join(folder, 'first.csv'), 'SMILES\nCCO\n')
    await waitUntil('the file is handed over', () => handed.length > 0)
    expect(notices.map((notice) => notice.type)).toEqual(['folder-missing', 'folder-back'])
  })

  it('offers a file again when it could not be taken yet', async () => {
    let attempts = 0
    const { handed } = watch({ onFile: () => (++attempts < 3 ? 'retry' : 'done') })
    fs.writeFileSync(path.join(folder, 'locked.csv'), 'SMILES\nCCO\n')
    await waitUntil('the file is taken at the third attempt', () => attempts === 3)
    expect(handed.map((file) => file.name)).toEqual(['locked.csv', 'locked.csv', 'locked.csv'])
  })

  it('aborts the file in hand when stopped, and waits for it to end', async () => {
    let inHand = false
    let aborted = false
    let ended = false
    const watcher = new FolderWatcher({
      folder,
      settleMs: 200,
      scanMs: 100,
      onFile: async (_file, signal) => {
        inHand = true
        // A check that ends only when told to stop, as a long one does.
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true
            setTimeout(resolve, 50)
          }),
        )
        ended = true
        return 'retry'
      },
      onNotice: () => {},
      log: silentLogger,
    })
    watchers.push(watcher)
    watcher.start()
    fs.writeFileSync(path.join(folder, 'big.csv'), 'SMILES\nCCO\n')
    await waitUntil('the file is in hand', () => inHand)
    await watcher.stop()
    expect(aborted).toBe(true)
    expect(ended).toBe(true)
  })
})

describe('file names', () => {
  it.each([
    ['plate.csv', true],
    ['PLATE.CSV', true],
    ['hits.sd', true],
    ['book.xlsx', true],
    ['archive.zip', false],
    ['book.xls', false],
  ])('%s is watched: %s', (name, watched) => {
    expect(isWatchedName(name)).toBe(watched)
  })

  it.each(['.DS_Store', '~$book.xlsx', 'run.csv.part', 'a.TMP', 'x.csv.crdownload', 'b.csv~'])(
    '%s is temporary',
    (name) => {
      expect(isTemporaryName(name)).toBe(true)
    },
  )
})
