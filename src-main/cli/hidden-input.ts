import { StringDecoder } from 'node:string_decoder'
import { AppError } from '../shared/app-error.ts'
import type { CliIo } from './cli-io.ts'

/** What is read from a terminal: `process.stdin` when it is one (tests give a stand-in). */
export interface TerminalInput {
  readonly isTTY?: boolean
  readonly isRaw?: boolean
  setRawMode(raw: boolean): unknown
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  on(event: 'end', listener: () => void): unknown
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  off(event: 'end', listener: () => void): unknown
  resume(): unknown
  pause(): unknown
}

export interface PromptOutput {
  write(text: string): unknown
}

/**
 * The API token for `vault-desk connect`: typed at the terminal without being shown when stdin is
 * one (nor left in the terminal's scrollback), else stdin read whole (a pipe, a file). The prompt
 * goes to stderr, which with --json keeps stdout to the one document.
 */
export async function readToken(
  io: CliIo,
  terminal: TerminalInput = process.stdin,
  output: PromptOutput = process.stderr,
): Promise<string> {
  if (terminal.isTTY !== true) return (await io.readStdin()).trim()
  return (await readHiddenLine(terminal, output, 'API token (not shown as you type): ')).trim()
}

/**
 * Reads one line from a terminal with echo off: the terminal is put in raw mode (the only way
 * Node turns echo off), so this reads keys itself: Enter ends the line, Backspace and Ctrl-U edit
 * it, Ctrl-D ends it (as at the end of input), Ctrl-C cancels; escape sequences (arrow keys, the
 * markers of a bracketed paste) and other control keys are ignored. The terminal's mode is put
 * back however the line ends.
 */
export function readHiddenLine(
  input: TerminalInput,
  output: PromptOutput,
  prompt: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const wasRaw = input.isRaw === true
    const decoder = new StringDecoder('utf8')
    let line: string[] = []
    let escape: 'none' | 'started' | 'sequence' = 'none'
    const finish = (outcome: () => void) => {
      input.off('data', onData)
      input.off('end', onEnd)
      input.setRawMode(wasRaw)
      input.pause()
      // Enter was not echoed either: end the prompt's line.
      output.write('\n')
      outcome()
    }
    const onEnd = () => finish(() => resolve(line.join('')))
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk)
      for (const character of text) {
        if (escape === 'started') {
          escape = character === '[' ? 'sequence' : 'none'
          continue
        }
        if (escape === 'sequence') {
          // A control sequence ends with a byte from @ to ~.
          if (character >= '@' && character <= '~') escape = 'none'
          continue
        }
        switch (character) {
          case '\r':
          case '\n':
          case '\u0004':
            finish(() => resolve(line.join('')))
            return
          case '\u0003':
            finish(() => reject(new AppError('cancelled', 'Cancelled: no token was read.')))
            return
          case '\u007f':
          case '\b':
            line = line.slice(0, -1)
            break
          case '\u0015':
            line = []
            break
          case '\u001b':
            escape = 'started'
            break
          default:
            if (character >= ' ') line.push(character)
        }
      }
    }
    input.setRawMode(true)
    input.on('data', onData)
    input.on('end', onEnd)
    input.resume()
    output.write(prompt)
  })
}
