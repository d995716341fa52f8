import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Redactor } from '../shared/redactor.ts'
import { FileLogger } from './file-logger.ts'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vault-desk-log-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const readLines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))

describe('FileLogger', () => {
  it('writes JSON lines with level, message, bindings and fields', () => {
    const file = path.join(dir, 'app.log')
    const log = new FileLogger({ file, redactor: new Redactor() }).logger({ host: 'cli' })
    log.child({ component: 'sync' }).info('page stored', { records: 1000 })
    log.debug('not at info level')
    const [line, ...rest] = readLines(file)
    expect(rest).toEqual([])
    expect(line).toMatchObject({
      level: 'info',
      msg: 'page stored',
      host: 'cli',
      component: 'sync',
      records: 1000,
    })
    expect(new Date(line.time).toString()).not.toBe('Invalid Date')
  })

  it('never writes a secret: not under secret-looking keys, not registered tokens anywhere', () => {
    const file = path.join(dir, 'app.log')
    const redactor = new Redactor()
    redactor.add('tok-1234-secret-value')
    const log = new FileLogger({ file, redactor }).logger()
    log.warn('request to vault failed with tok-1234-secret-value', {
      headers: { 'X-SVC-Token': 'anything', accept: 'application/json' },
      error: new Error('bad token tok-1234-secret-value'),
      nested: [{ url: 'https://v.example/?t=tok-1234-secret-value' }],
    })
    const text = fs.readFileSync(file, 'utf8')
    expect(text).not.toContain('tok-1234-secret-value')
    expect(text).not.toContain('anything')
    expect(readLines(file)[0].headers.accept).toBe('application/json')
  })

  it('rotates past the size limit and keeps only maxFiles old files', () => {
    const file = path.join(dir, 'app.log')
    const log = new FileLogger({
      file,
      redactor: new Redactor(),
      maxBytes: 400,
      maxFiles: 2,
    }).logger()
    for (let index = 0; index < 40; index++) log.info(`line ${index}`, { padding: 'x'.repeat(60) })
    const files = fs.readdirSync(dir).sort()
    expect(files).toEqual(['app.log', 'app.log.1', 'app.log.2'])
    for (const name of files)
      expect(fs.statSync(path.join(dir, name)).size).toBeLessThanOrEqual(400)
    expect(readLines(file).at(-1).msg).toBe('line 39')
    expect(readLines(`${file}.1`).at(-1).msg).not.toBe('line 39')
  })

  it('continues the size count of an existing file after a restart', () => {
    const file = path.join(dir, 'app.log')
    fs.writeFileSync(file, 'x'.repeat(390) + '\n')
    new FileLogger({ file, redactor: new Redactor(), maxBytes: 400 }).logger().info('after restart')
    expect(fs.existsSync(`${file}.1`)).toBe(true)
    expect(readLines(file)[0].msg).toBe('after restart')
  })

  it.runIf(process.platform !== 'win32')(
    'keeps its folder and files private: new, rotated, and left open by an earlier version',
    () => {
      const umask = process.umask(0o022)
      try {
        const file = path.join(dir, 'logs', 'app.log')
        fs.mkdirSync(path.dirname(file))
        fs.writeFileSync(`${file}.2`, '{}\n', { mode: 0o644 })
        fs.chmodSync(`${file}.2`, 0o644)
        const log = new FileLogger({ file, redactor: new Redactor(), maxBytes: 200 }).logger()
        expect(fs.statSync(`${file}.2`).mode & 0o777).toBe(0o600)
        for (let index = 0; index < 10; index++) log.info(`line ${index}`, { pad: 'x'.repeat(60) })
        expect(fs.existsSync(`${file}.1`)).toBe(true)
        for (const name of ['app.log', 'app.log.1', 'app.log.2']) {
          expect(fs.statSync(path.join(dir, 'logs', name)).mode & 0o777, name).toBe(0o600)
        }
        const fresh = path.join(dir, 'new', 'logs', 'app.log')
        new FileLogger({ file: fresh, redactor: new Redactor() }).logger().info('first')
        expect(fs.statSync(path.join(dir, 'new')).mode & 0o777).toBe(0o700)
        expect(fs.statSync(path.dirname(fresh)).mode & 0o777).toBe(0o700)
        expect(fs.statSync(fresh).mode & 0o777).toBe(0o600)
      } finally {
        process.umask(umask)
      }
    },
  )
})
