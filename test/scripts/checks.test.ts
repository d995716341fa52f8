import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { lanes } from '../../scripts/checks.ts'

const root = path.resolve(import.meta.dirname, '../..')
const scripts = (
  JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
).scripts

/** The npm scripts a script runs, `npm run` by `npm run`, down to the commands. */
function commandsOf(name: string): string[] {
  return scripts[name]!.split('&&').flatMap((part) => {
    const called = /^npm run (\S+)$/.exec(part.trim())
    return called ? commandsOf(called[1]!) : [part.trim()]
  })
}

describe("the test command's checks", () => {
  it('run every lint and type check and the build, each once', () => {
    const inLanes = lanes.flat().flatMap(commandsOf)
    const expected = ['lint', 'typecheck', 'build'].flatMap(commandsOf)
    expect([...inLanes].sort()).toEqual([...expected].sort())
    expect(new Set(inLanes).size).toBe(inLanes.length)
  })

  it('come first in the test command', () => {
    expect(scripts.test!.startsWith('node scripts/checks.ts && ')).toBe(true)
  })
})
