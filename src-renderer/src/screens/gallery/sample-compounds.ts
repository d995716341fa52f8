/**
 * Made-up compounds for the component gallery: many rows with realistic shapes (formulas whose
 * weights add up, gaps where a value was never measured), the same on every run.
 */
export interface SampleCompound {
  id: string
  name: string
  formula: string
  molecularWeight: number
  logP: number | null
  project: string
  registeredOn: string
}

const atomicMass = { C: 12.011, H: 1.008, N: 14.007, O: 15.999, S: 32.06, Cl: 35.45 }
type Element = keyof typeof atomicMass

const projects = ['Kinase panel', 'GPCR-7', 'Antibacterials', 'Fragment screen', 'PROTAC linkers']
const stems = [
  'Aminopyrazole',
  'Benzimidazole',
  'Quinazolinone',
  'Piperazinyl',
  'Indolyl',
  'Azetidine',
]

/** A small, seeded generator (mulberry32), so the gallery shows the same rows every time. */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296
  }
}

export function formulaWeight(counts: Partial<Record<Element, number>>): number {
  let weight = 0
  for (const [element, count] of Object.entries(counts) as [Element, number][]) {
    weight += atomicMass[element] * count
  }
  return Math.round(weight * 100) / 100
}

/** Hill order: carbon, hydrogen, then the others alphabetically; a count of one is not written. */
export function hillFormula(counts: Partial<Record<Element, number>>): string {
  const others = (Object.keys(counts) as Element[]).filter((e) => e !== 'C' && e !== 'H').sort()
  return (['C', 'H', ...others] as Element[])
    .filter((element) => (counts[element] ?? 0) > 0)
    .map((element) => (counts[element] === 1 ? element : `${element}${counts[element]}`))
    .join('')
}

export function sampleCompounds(count: number, seed = 7): SampleCompound[] {
  const next = random(seed)
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  const firstDay = Date.UTC(2019, 0, 1)
  return Array.from({ length: count }, (_, index) => {
    const counts: Partial<Record<Element, number>> = {
      C: between(8, 34),
      H: between(8, 42),
      N: between(0, 6),
      O: between(0, 7),
      ...(next() < 0.2 ? { S: 1 } : {}),
      ...(next() < 0.15 ? { Cl: between(1, 2) } : {}),
    }
    const number = index + 1
    return {
      id: `VD-${String(number).padStart(6, '0')}`,
      name: `${stems[between(0, stems.length - 1)]} ${number}`,
      formula: hillFormula(counts),
      molecularWeight: formulaWeight(counts),
      logP: next() < 0.06 ? null : Math.round((next() * 8 - 2) * 100) / 100,
      project: projects[between(0, projects.length - 1)]!,
      registeredOn: new Date(firstDay + between(0, 2400) * 86_400_000).toISOString().slice(0, 10),
    }
  })
}
