import fs from 'node:fs'
import path from 'node:path'
import type { LogFields, Logger, LogLevel } from '../shared/logger.ts'
import { createPrivateFolder, makeFilesPrivate, privateFileMode } from '../shared/private-files.ts'
import type { Redactor } from '../shared/redactor.ts'

const levelRank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

export interface FileLoggerOptions {
  file: string
  redactor: Redactor
  level?: LogLevel
  /** Rotate when the file would grow past this size. */
  maxBytes?: number
  /** How many rotated files (`.1` newest) are kept besides the current one. */
  maxFiles?: number
  /** Also receives every line, already redacted (the Electron host mirrors to stdout in dev). */
  mirror?: (line: string) => void
}

/**
 * JSON-lines logging to a size-rotated file. Lines are written synchronously so that the last
 * words before a crash are on disk; a line is a few hundred bytes, far below a frame's budget.
 */
export class FileLogger {
  readonly #options: Required<Omit<FileLoggerOptions, 'mirror'>> & Pick<FileLoggerOptions, 'mirror'>
  #size: number

  constructor(options: FileLoggerOptions) {
    this.#options = { level: 'info', maxBytes: 5 * 1024 * 1024, maxFiles: 3, ...options }
    // Log lines name records, vaults and files: they are the person's alone, as the data is.
    createPrivateFolder(path.dirname(options.file))
    makeFilesPrivate(this.#files())
    this.#size = fileSize(options.file)
  }

  logger(bindings: LogFields = {}): Logger {
    const write = (level: LogLevel, message: string, fields?: LogFields) =>
      this.write(level, message, { ...bindings, ...fields })
    return {
      debug: (message, fields) => write('debug', message, fields),
      info: (message, fields) => write('info', message, fields),
      warn: (message, fields) => write('warn', message, fields),
      error: (message, fields) => write('error', message, fields),
      child: (more) => this.logger({ ...bindings, ...more }),
    }
  }

  write(level: LogLevel, message: string, fields: LogFields): void {
    if (levelRank[level] < levelRank[this.#options.level]) return
    const { redactor } = this.#options
    const record = {
      time: new Date().toISOString(),
      level,
      msg: redactor.redactText(message),
      ...(redactor.redact(fields) as LogFields),
    }
    const line = `${JSON.stringify(record)}\n`
    try {
      const bytes = Buffer.byteLength(line)
      if (this.#size + bytes > this.#options.maxBytes && this.#size > 0) this.#rotate()
      fs.appendFileSync(this.#options.file, line, { mode: privateFileMode })
      this.#size += bytes
    } catch {
      // A full or read-only disk must not take the app down with it; the mirror still sees it.
    }
    this.#options.mirror?.(line)
  }

  /** The current file and the rotated ones, newest first. */
  #files(): string[] {
    const { file, maxFiles } = this.#options
    return [file, ...Array.from({ length: maxFiles }, (_, index) => `${file}.${index + 1}`)]
  }

  #rotate(): void {
    const { file, maxFiles } = this.#options
    fs.rmSync(`${file}.${maxFiles}`, { force: true })
    for (let index = maxFiles - 1; index >= 1; index--) {
      if (fs.existsSync(`${file}.${index}`))
        fs.renameSync(`${file}.${index}`, `${file}.${index + 1}`)
    }
    fs.renameSync(file, `${file}.1`)
    this.#size = 0
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size
  } catch {
    return 0
  }
}
