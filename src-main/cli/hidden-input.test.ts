import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { AppError } from '../shared/app-error.ts'
import type { CliIo } from './cli-io.ts'
import { readHiddenLine, readToken } from './hidden-input.ts'

/**
 * A terminal as its line discipline behaves: what is typed is echoed to the screen unless the
 * terminal is in raw mode, and reaches the reader either way.
 */
class FakeTerminal extends PassThrough {
  readonly isTTY = true
  isRaw = false
  screen = ''
  readonly modes: boolean[] = []

  setRawMode(raw: boolean): this {
    this.isRaw = raw
    this.modes.push(raw)
    return this
  }

  type(keys: string): void {
    if (!this.isRaw) this.screen += keys
    this.write(Buffer.from(keys))
  }
}

function screenOf(terminal: FakeTerminal) {
  return { write: (text: string) => (terminal.screen += text) }
}

const pipedIo = (stdin: string): CliIo => ({
  stdout: () => {},
  stderr: () => {},
  readStdin: async () => stdin,
  env: {},
})

describe('readToken', () => {
  it('reads a token typed at a terminal without showing it, and puts the terminal back', async () => {
    const terminal = new FakeTerminal()
    const token = readToken(pipedIo('not this'), terminal, screenOf(terminal))
    terminal.type('tok-typed-4e2a\r')
    expect(await token).toBe('tok-typed-4e2a')
    expect(terminal.screen).toBe('API token (not shown as you type): \n')
    expect(terminal.modes).toEqual([true, false])
  })

  it('reads stdin whole when it is not a terminal', async () => {
    const notATerminal = Object.assign(new FakeTerminal(), { isTTY: false })
    expect(await readToken(pipedIo('  tok-piped-91c3\n'), notATerminal)).toBe('tok-piped-91c3')
    expect(notATerminal.modes).toEqual([])
  })
})

describe('readHiddenLine', () => {
  const read = async (keys: string[]) => {
    const terminal = new FakeTerminal()
    const line = readHiddenLine(terminal, screenOf(terminal), '> ')
    for (const chunk of keys) terminal.type(chunk)
    return { line: await line, terminal }
  }

  it('edits with Backspace and Ctrl-U, and takes keys as they come, split or together', async () => {
    expect((await read(['ab', 'c\u007f', 'd\b', 'e\r'])).line).toBe('abe')
    expect((await read(['wrong\u0015right\n'])).line).toBe('right')
  })

  it('keeps characters whose bytes arrive apart', async () => {
    const terminal = new FakeTerminal()
    const line = readHiddenLine(terminal, screenOf(terminal), '> ')
    const bytes = Buffer.from('µ-ß🧪\r')
    terminal.write(bytes.subarray(0, 1))
    terminal.write(bytes.subarray(1, 6))
    terminal.write(bytes.subarray(6))
    expect(await line).toBe('µ-ß🧪')
  })

  it('ignores escape sequences: arrow keys, the markers of a bracketed paste', async () => {
    expect((await read(['\u001b[D\u001b[200~tok-pasted\u001b[201~\r'])).line).toBe('tok-pasted')
  })

  it('ends the line at Ctrl-D or at the end of input', async () => {
    expect((await read(['abc\u0004'])).line).toBe('abc')
    const terminal = new FakeTerminal()
    const line = readHiddenLine(terminal, screenOf(terminal), '> ')
    terminal.type('partial')
    terminal.end()
    expect(await line).toBe('partial')
    expect(terminal.modes).toEqual([true, false])
  })

  it('cancels at Ctrl-C with a clear error, and puts the terminal back', async () => {
    const terminal = new FakeTerminal()
    const line = readHiddenLine(terminal, screenOf(terminal), '> ')
    terminal.type('tok-half\u0003')
    const error = await line.catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'cancelled', message: 'Cancelled: no token was read.' })
    expect(terminal.isRaw).toBe(false)
    expect(terminal.screen).not.toContain('tok-half')
  })

  it('leaves a terminal that was raw before in raw mode', async () => {
    const terminal = new FakeTerminal()
    terminal.isRaw = true
    const line = readHiddenLine(terminal, screenOf(terminal), '> ')
    terminal.type('x\r')
    await line
    expect(terminal.modes).toEqual([true, true])
  })
})
