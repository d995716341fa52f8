/** Symbols and average/monoisotopic masses of the elements the simulator's molecules use. */
const elements: ReadonlyArray<readonly [number, string, number, number]> = [
  [1, 'H', 1.008, 1.00782503],
  [3, 'Li', 6.94, 7.01600344],
  [5, 'B', 10.81, 11.00930536],
  [6, 'C', 12.011, 12],
  [7, 'N', 14.007, 14.00307401],
  [8, 'O', 15.999, 15.99491462],
  [9, 'F', 18.998, 18.99840316],
  [11, 'Na', 22.99, 22.98976928],
  [12, 'Mg', 24.305, 23.9850417],
  [14, 'Si', 28.085, 27.97692653],
  [15, 'P', 30.974, 30.97376199],
  [16, 'S', 32.06, 31.97207117],
  [17, 'Cl', 35.45, 34.96885268],
  [19, 'K', 39.098, 38.96370649],
  [20, 'Ca', 40.078, 39.96259086],
  [26, 'Fe', 55.845, 55.93493633],
  [29, 'Cu', 63.546, 62.92959772],
  [30, 'Zn', 65.38, 63.92914201],
  [34, 'Se', 78.971, 79.9165218],
  [35, 'Br', 79.904, 78.9183376],
  [53, 'I', 126.904, 126.9044719],
]

const byNumber = new Map(
  elements.map(([number, symbol, average, mono]) => [number, { symbol, average, mono }]),
)
const bySymbol = new Map(elements.map(([, symbol, average, mono]) => [symbol, { average, mono }]))

export function elementSymbol(atomicNumber: number): string {
  return byNumber.get(atomicNumber)?.symbol ?? `Z${atomicNumber}`
}

export type ElementCounts = Record<string, number>

/** Hill order: C, then H, then the others alphabetically (all alphabetically without carbon). */
export function hillFormula(counts: ElementCounts): string {
  const symbols = Object.keys(counts).filter((symbol) => (counts[symbol] ?? 0) > 0)
  const hasCarbon = symbols.includes('C')
  const ordered = hasCarbon
    ? [
        'C',
        ...(symbols.includes('H') ? ['H'] : []),
        ...symbols.filter((s) => s !== 'C' && s !== 'H').sort(),
      ]
    : symbols.sort()
  return ordered
    .map((symbol) => (counts[symbol] === 1 ? symbol : `${symbol}${counts[symbol]}`))
    .join('')
}

export function averageMass(counts: ElementCounts): number {
  let mass = 0
  for (const [symbol, count] of Object.entries(counts))
    mass += (bySymbol.get(symbol)?.average ?? 0) * count
  return mass
}

export function monoisotopicMass(counts: ElementCounts): number {
  let mass = 0
  for (const [symbol, count] of Object.entries(counts))
    mass += (bySymbol.get(symbol)?.mono ?? 0) * count
  return mass
}
