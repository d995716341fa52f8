import { describe, expect, it } from 'vitest'
import {
  defaultDirection,
  directionScope,
  GoodDirections,
  type DirectionStore,
} from './good-directions.svelte.ts'

function memoryStore(initial: Record<string, string> = {}): DirectionStore & {
  items: Record<string, string>
} {
  const items = { ...initial }
  return {
    items,
    getItem: (key) => items[key] ?? null,
    setItem: (key, value) => void (items[key] = value),
  }
}

const scope = directionScope('c1', 2)

describe('which end of a readout is good', () => {
  it('takes concentrations as better low and anything else as better high', () => {
    expect(defaultDirection('uM')).toBe('low')
    expect(defaultDirection('nM')).toBe('low')
    expect(defaultDirection('mg/mL')).toBe('low')
    expect(defaultDirection('%')).toBe('high')
    expect(defaultDirection('pIC50')).toBe('high')
    expect(defaultDirection(null)).toBe('high')
  })

  it('remembers the person’s choice per vault and readout, across sessions', () => {
    const store = memoryStore()
    const directions = new GoodDirections(store)
    expect(directions.of(scope, '3:12', 'uM')).toBe('low')
    directions.choose(scope, '3:12', 'high')
    expect(directions.of(scope, '3:12', 'uM')).toBe('high')
    expect(directions.chosen(scope, '3:12')).toBe(true)
    expect(directions.of(directionScope('c1', 3), '3:12', 'uM')).toBe('low')

    const nextSession = new GoodDirections(store)
    expect(nextSession.of(scope, '3:12', 'uM')).toBe('high')
    expect(nextSession.chosen(scope, '3:15')).toBe(false)
  })

  it('ignores what it cannot read, and works without a store', () => {
    const broken = memoryStore({ 'vault-desk.results.good-directions': '{"c1/2/3:12":"sideways"' })
    expect(new GoodDirections(broken).of(scope, '3:12', 'uM')).toBe('low')
    const odd = memoryStore({ 'vault-desk.results.good-directions': '{"c1/2/3:12":"sideways"}' })
    expect(new GoodDirections(odd).of(scope, '3:12', 'uM')).toBe('low')
    const none = new GoodDirections(null)
    none.choose(scope, '3:12', 'high')
    expect(none.of(scope, '3:12', 'uM')).toBe('high')
  })
})
