import { describe, expect, it } from 'vitest'
import { parsePreviewOptions, portVariable } from './preview-options.ts'

describe('parsePreviewOptions', () => {
  it('takes any free port unless told otherwise', () => {
    expect(parsePreviewOptions([], {})).toEqual({ port: 0, help: false })
    expect(parsePreviewOptions([], { [portVariable]: '' })).toEqual({ port: 0, help: false })
  })

  it('reads --port, in both spellings, before the environment variable', () => {
    expect(parsePreviewOptions(['--port', '5317'], {}).port).toBe(5317)
    expect(parsePreviewOptions(['--port=6000'], { [portVariable]: '7000' }).port).toBe(6000)
    expect(parsePreviewOptions([], { [portVariable]: '7000' }).port).toBe(7000)
    expect(parsePreviewOptions(['--port', '0'], {}).port).toBe(0)
  })

  it.each([
    [['--port'], '--port needs a number'],
    [['--port', 'http'], '--port must be a whole number from 0 to 65535, not "http"'],
    [['--port', '65536'], 'not "65536"'],
    [['--port', '-1'], 'not "-1"'],
    [['--port', '1.5'], 'not "1.5"'],
    [['--prot', '1'], 'Unknown argument "--prot"'],
  ])('refuses %j, saying what is wrong and how to use it', (argv, message) => {
    expect(() => parsePreviewOptions(argv, {})).toThrow(message)
    expect(() => parsePreviewOptions(argv, {})).toThrow('Usage: npm run preview:web')
  })

  it('names the environment variable when its value is wrong', () => {
    expect(() => parsePreviewOptions([], { [portVariable]: 'abc' })).toThrow(
      `${portVariable} must be a whole number`,
    )
  })

  it('asks for help', () => {
    expect(parsePreviewOptions(['--help'], {}).help).toBe(true)
  })
})
