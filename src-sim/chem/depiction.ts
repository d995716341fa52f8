import { encodePng } from '../pure/png.ts'
import { Raster } from '../pure/raster.ts'
import type { Color } from '../pure/raster.ts'

/**
 * A PNG drawing of a molecule from a V2000 molfile's 2D coordinates: bonds as lines (double and
 * triple bonds as parallel strokes), heteroatoms as coloured labels. The toolkit draws SVG but
 * cannot rasterise in Node, so the PNG is drawn here.
 */
const atomColors: Record<string, Color> = {
  N: [40, 60, 220],
  O: [220, 30, 30],
  S: [190, 160, 0],
  F: [30, 150, 30],
  Cl: [30, 150, 30],
  Br: [150, 40, 40],
  I: [120, 0, 160],
  P: [230, 120, 0],
}
const black: Color = [20, 20, 20]
const white: Color = [255, 255, 255]

interface Atom {
  x: number
  y: number
  symbol: string
}

interface Bond {
  from: number
  to: number
  order: number
}

export function parseMolfileGeometry(molfile: string): { atoms: Atom[]; bonds: Bond[] } {
  const lines = molfile.split(/\r?\n/)
  const counts = lines[3] ?? ''
  const atomCount = Number(counts.slice(0, 3))
  const bondCount = Number(counts.slice(3, 6))
  if (!Number.isInteger(atomCount) || !Number.isInteger(bondCount) || !counts.includes('V2000')) {
    throw new Error('Only V2000 molfiles can be drawn')
  }
  const atoms = lines.slice(4, 4 + atomCount).map((line) => ({
    x: Number(line.slice(0, 10)),
    y: Number(line.slice(10, 20)),
    symbol: line.slice(31, 34).trim(),
  }))
  const bonds = lines.slice(4 + atomCount, 4 + atomCount + bondCount).map((line) => ({
    from: Number(line.slice(0, 3)) - 1,
    to: Number(line.slice(3, 6)) - 1,
    order: Number(line.slice(6, 9)),
  }))
  return { atoms, bonds }
}

export function depictPng(molfile: string, width: number, height: number): Buffer {
  const { atoms, bonds } = parseMolfileGeometry(molfile)
  const raster = new Raster(width, height, white)
  if (atoms.length === 0) return encodePng(width, height, raster.pixels)
  const xs = atoms.map((atom) => atom.x)
  const ys = atoms.map((atom) => atom.y)
  const [minX, maxX, minY, maxY] = [
    Math.min(...xs),
    Math.max(...xs),
    Math.min(...ys),
    Math.max(...ys),
  ]
  const margin = Math.max(8, Math.min(width, height) * 0.08)
  const scale = Math.min(
    (width - 2 * margin) / Math.max(maxX - minX, 1),
    (height - 2 * margin) / Math.max(maxY - minY, 1),
    40,
  )
  const offsetX = (width - (maxX - minX) * scale) / 2
  const offsetY = (height - (maxY - minY) * scale) / 2
  const place = (atom: Atom) => ({
    x: offsetX + (atom.x - minX) * scale,
    y: height - (offsetY + (atom.y - minY) * scale),
  })
  const thickness = Math.max(1, Math.round(scale / 14))
  for (const bond of bonds) {
    const from = atoms[bond.from]
    const to = atoms[bond.to]
    if (!from || !to) continue
    const a = place(from)
    const b = place(to)
    const length = Math.hypot(b.x - a.x, b.y - a.y) || 1
    const normalX = ((b.y - a.y) / length) * scale * 0.12
    const normalY = (-(b.x - a.x) / length) * scale * 0.12
    const strokes = bond.order === 2 ? [-0.5, 0.5] : bond.order === 3 ? [-1, 0, 1] : [0]
    for (const shift of strokes) {
      raster.line(
        a.x + normalX * shift,
        a.y + normalY * shift,
        b.x + normalX * shift,
        b.y + normalY * shift,
        black,
        thickness,
      )
    }
  }
  const textScale = Math.max(1, Math.round(scale / 16))
  for (const atom of atoms) {
    if (atom.symbol === 'C') continue
    const { x, y } = place(atom)
    const labelWidth = Raster.textWidth(atom.symbol, textScale)
    const labelHeight = Raster.textHeight(textScale)
    raster.fillRect(
      x - labelWidth / 2 - 1,
      y - labelHeight / 2 - 1,
      labelWidth + 2,
      labelHeight + 2,
      white,
    )
    raster.text(
      x - labelWidth / 2,
      y - labelHeight / 2,
      atom.symbol,
      atomColors[atom.symbol] ?? black,
      textScale,
    )
  }
  return encodePng(width, height, raster.pixels)
}
