import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeptNotices } from './kept-notices.ts'

interface Note {
  text: string
}

const readNote = (value: unknown): Note | null =>
  typeof value === 'object' && value !== null && typeof (value as Note).text === 'string'
    ? (value as Note)
    : null

let folder: string
let problems: { message: string; details: Record<string, unknown> }[]

beforeEach(() => {
  folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vd-kept-')), 'notices')
  problems = []
})
afterEach(() => fs.rmSync(path.dirname(folder), { recursive: true, force: true }))

function store(now = Date.now): KeptNotices<Note> {
  return new KeptNotices(folder, {
    read: readNote,
    onProblem: (message, details) => problems.push({ message, details }),
    now,
  })
}

describe('notices kept in a folder', () => {
  it('lists what any store of the folder kept, oldest first, until one of them dismisses it', () => {
    let clock = Date.parse('2026-11-29T10:00:00Z')
    const mine = store(() => clock)
    const theirs = store(() => clock)
    mine.keep('b:2', { text: 'second' })
    clock += 1_000
    theirs.keep('a:1', { text: 'third' })
    clock -= 60_000
    theirs.keep('c:3', { text: 'first' })
    expect(mine.list().map((kept) => kept.notice.text)).toEqual(['first', 'second', 'third'])
    expect(theirs.dismiss('b:2')).toBe('dismissed')
    expect(mine.dismiss('b:2')).toBe('already dismissed')
    expect(mine.dismiss('never')).toBe('unknown')
    expect(mine.list().map((kept) => kept.id)).toEqual(['c:3', 'a:1'])
    // Nothing half written is left behind.
    expect(fs.readdirSync(folder).filter((name) => !name.endsWith('.json'))).toEqual([])
    expect(problems).toEqual([])
  })

  it('leaves a notice of a kind it cannot read where it is, for the version that can', () => {
    const kept = store()
    kept.keep('x:1', { text: 'mine' })
    const newer = path.join(folder, 'y%3A1.json')
    fs.writeFileSync(
      newer,
      JSON.stringify({ id: 'y:1', keptAt: new Date().toISOString(), dismissedAt: null, notice: 7 }),
    )
    expect(kept.list().map((notice) => notice.id)).toEqual(['x:1'])
    expect(fs.existsSync(newer)).toBe(true)
    expect(problems).toEqual([])
  })

  it('sets an unreadable file aside once, telling why, and keeps listing the others', () => {
    const kept = store()
    kept.keep('x:1', { text: 'fine' })
    fs.writeFileSync(path.join(folder, 'broken.json'), '')
    fs.writeFileSync(path.join(folder, 'array.json'), '[]')
    expect(kept.list().map((notice) => notice.id)).toEqual(['x:1'])
    expect(kept.list().map((notice) => notice.id)).toEqual(['x:1'])
    expect(problems.map((problem) => problem.details.reason).sort()).toEqual([
      'it is not JSON (Unexpected end of JSON input)',
      'it is not a kept notice',
    ])
    const aside = fs.readdirSync(folder).filter((name) => name.includes('.unreadable-'))
    expect(aside).toHaveLength(2)
  })

  it('says what is wrong when the folder cannot be written, and lists nothing from it', () => {
    fs.mkdirSync(path.dirname(folder), { recursive: true })
    fs.writeFileSync(folder, 'not a folder')
    const kept = store()
    expect(() => kept.keep('x:1', { text: 'lost' })).toThrow(/EEXIST|ENOTDIR/)
    expect(kept.list()).toEqual([])
    expect(problems.map((problem) => problem.message)).toEqual(['the kept notices cannot be read'])
  })

  it('tells a watcher when another store keeps or dismisses a notice', async () => {
    const mine = store()
    const seen: string[][] = []
    const stop = mine.watch(() => seen.push(mine.list().map((kept) => kept.id)), {
      settleMs: 20,
    })
    try {
      const theirs = store()
      theirs.keep('x:1', { text: 'new' })
      await until(() => seen.some((ids) => ids.join() === 'x:1'))
      theirs.dismiss('x:1')
      await until(() => seen.at(-1)?.length === 0)
    } finally {
      stop()
    }
  })
})

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error('never happened')
}
