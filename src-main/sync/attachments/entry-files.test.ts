import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EntryArchiveError, readEntryFiles } from './entry-files.ts'

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vd-entry-archives-'))
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }))

/** An archive written by Python's zipfile (deflated), a reader-independent ZIP writer. */
function pythonZip(name: string, members: Record<string, string>): string {
  const file = path.join(folder, name)
  execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      `import json, sys, zipfile
members = json.loads(sys.stdin.read())
with zipfile.ZipFile(sys.argv[1], 'w', compression=zipfile.ZIP_DEFLATED) as archive:
    for name, text in members.items():
        archive.writestr(name, text)`,
      file,
    ],
    { input: JSON.stringify(members) },
  )
  return file
}

describe('readEntryFiles', () => {
  it('finds each entry’s files in its body and in its files folder', async () => {
    const archive = pythonZip('entries.zip', {
      'index.json': JSON.stringify([{ id: 5 }, { id: 6 }, { id: 7 }]),
      'entries/5/entry.json': JSON.stringify({
        id: 5,
        body: [
          { type: 'text', text: 'Coupling' },
          { type: 'file', file: 12, name: 'yields.csv' },
          { type: 'file', file: { id: 14 } },
          { type: 'link', url: 'https://example.org' },
        ],
      }),
      'entries/5/files/12-yields.csv': 'step,yield\n',
      'entries/5/files/13-TLC plate - day 2.png': 'png bytes',
      'entries/6/entry.json': JSON.stringify({ id: 6, body: [] }),
      'entries/7/entry.json': JSON.stringify({ id: 7 }),
    })
    const found = await readEntryFiles(archive)
    expect(Object.fromEntries(found)).toEqual({
      5: [
        { id: 12, name: 'yields.csv' },
        { id: 13, name: 'TLC plate - day 2.png' },
        { id: 14, name: null },
      ],
      // Entries without files are read too: a file removed from one is forgotten.
      6: [],
      7: [],
    })
  })

  it('names what is wrong with an archive it cannot read', async () => {
    const notZip = path.join(folder, 'not.zip')
    fs.writeFileSync(notZip, 'This is an HTML error page, not an export.')
    await expect(readEntryFiles(notZip)).rejects.toThrow(/not a ZIP archive/)

    const whole = fs.readFileSync(
      pythonZip('cut.zip', { 'entries/1/entry.json': JSON.stringify({ id: 1, body: [] }) }),
    )
    const cut = path.join(folder, 'cut-short.zip')
    fs.writeFileSync(cut, whole.subarray(0, whole.length - 30))
    await expect(readEntryFiles(cut)).rejects.toBeInstanceOf(EntryArchiveError)

    const badJson = pythonZip('bad-json.zip', { 'entries/2/entry.json': '{"id": 2, "body": [' })
    await expect(readEntryFiles(badJson)).rejects.toThrow(/an entry is not JSON/)

    const tiny = path.join(folder, 'tiny.zip')
    fs.writeFileSync(tiny, 'PK')
    await expect(readEntryFiles(tiny)).rejects.toThrow(/too short for a ZIP/)
  })
})
