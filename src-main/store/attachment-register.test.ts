import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { AttachmentRegister, attachmentCandidates } from './attachment-register.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-attachment-register-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('attachmentCandidates', () => {
  it('finds the files that file records, molecules, runs, protocols and entries name', () => {
    const file = path.join(dir, 'cache.db')
    const db = new Database(file)
    db.exec(`
      CREATE TABLE files (vault_id INTEGER, id INTEGER, name TEXT, mime_type TEXT, json TEXT);
      CREATE TABLE molecules (vault_id INTEGER, id INTEGER, json TEXT);
      CREATE TABLE eln_entries (vault_id INTEGER, id INTEGER, json TEXT);
      CREATE TABLE runs (vault_id INTEGER, id INTEGER, json TEXT);
      CREATE TABLE protocols (vault_id INTEGER, id INTEGER, json TEXT);
    `)
    db.prepare(`INSERT INTO runs VALUES (?, ?, ?)`).run(
      1,
      7,
      JSON.stringify({ source_files: [{ id: 17, name: 'reads.csv' }] }),
    )
    db.prepare(`INSERT INTO runs VALUES (?, ?, ?)`).run(
      2,
      8,
      JSON.stringify({ source_files: [{ id: 98, name: 'other vault' }] }),
    )
    db.prepare(`INSERT INTO protocols VALUES (?, ?, ?)`).run(
      1,
      3,
      JSON.stringify({ source_files: [{ id: 18, name: 'SOP.pdf' }] }),
    )
    db.prepare(`INSERT INTO files VALUES (?, ?, ?, ?, ?)`).run(
      1,
      10,
      'plate.csv',
      'text/csv',
      JSON.stringify({ id: 10, size: 1234 }),
    )
    db.prepare(`INSERT INTO files VALUES (?, ?, ?, ?, ?)`).run(2, 99, 'other vault', null, '{}')
    const molecule = (id: number, json: unknown) =>
      db.prepare(`INSERT INTO molecules VALUES (1, ?, ?)`).run(id, JSON.stringify(json))
    molecule(1, {
      source_files: [
        { id: 11, name: 'nmr.jdx' },
        { id: 10, name: 'dup' },
      ],
    })
    molecule(2, { source_files: null })
    molecule(3, { name: 'no files' })
    molecule(4, { source_files: [{ id: 'x' }, { id: -3 }, {}] })
    const entry = (id: number, json: unknown) =>
      db.prepare(`INSERT INTO eln_entries VALUES (1, ?, ?)`).run(id, JSON.stringify(json))
    entry(1, {
      body: [
        { type: 'text', text: 'Seen' },
        { type: 'link', url: 'https://example.org' },
        { type: 'file', file: 12 },
      ],
      files: [13, '14', { id: 15 }],
    })
    entry(2, { body: 'not a list', append_to_body: [{ type: 'file', file: 16 }] })
    db.close()

    expect(attachmentCandidates(file, 1).sort((a, b) => a.fileId - b.fileId)).toEqual([
      { fileId: 10, name: 'plate.csv', mimeType: 'text/csv', size: 1234 },
      { fileId: 11, name: 'nmr.jdx', mimeType: null, size: null },
      ...[12, 13, 14, 15, 16].map((fileId) => ({ fileId, name: null, mimeType: null, size: null })),
      { fileId: 17, name: 'reads.csv', mimeType: null, size: null },
      { fileId: 18, name: 'SOP.pdf', mimeType: null, size: null },
    ])
  })
})

describe('AttachmentRegister', () => {
  it('keeps when a file was last opened across a new fetch, and forgets evicted contents', () => {
    const register = new AttachmentRegister(path.join(dir, 'register.db'))
    const entry = {
      vaultId: 1,
      fileId: 5,
      name: 'a.png',
      mimeType: 'image/png',
      size: 10,
      sha256: 'ab',
      storedAs: '1-5.png',
      state: 'fetched' as const,
      reason: null,
      kept: false,
      fetchedAt: '2026-11-01T00:00:00.000Z',
    }
    register.record(entry)
    register.touch(1, 5, '2026-11-02T00:00:00.000Z')
    register.record({ ...entry, sha256: 'cd' })
    expect(register.get(1, 5)).toMatchObject({
      sha256: 'cd',
      lastOpenedAt: '2026-11-02T00:00:00.000Z',
    })
    expect(register.fetchedBytes()).toBe(10)
    register.markEvicted(1, 5, 'Removed to keep within the attachment budget.')
    expect(register.get(1, 5)).toMatchObject({ state: 'over_budget', storedAs: null, sha256: null })
    expect(register.fetchedBytes()).toBe(0)
    register.learn(1, 'molecule', 7, [
      { id: 5, name: 'a.png' },
      { id: 6, name: null },
    ])
    register.learn(1, 'molecule', 7, [{ id: 6, name: 'b.csv' }])
    expect(register.known(1, { resourceClass: 'molecule', resourceId: 7 })).toEqual([
      { fileId: 6, name: 'b.csv', mimeType: null, size: null },
    ])
    register.close()
    if (process.platform !== 'win32') {
      expect(fs.statSync(path.join(dir, 'register.db')).mode & 0o777).toBe(0o600)
    }
  })
})
