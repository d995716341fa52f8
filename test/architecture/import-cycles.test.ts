/**
 * No module imports itself through others, not even for types: a circle of imports means two
 * modules each know the other, so neither can be understood (or moved) alone. A type both need
 * belongs in a small file of its own that both import.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const root = path.resolve(import.meta.dirname, '../..')
const sourceRoots = ['src-common', 'src-main', 'src-renderer/src', 'src-sim']
const importPattern =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g

function sourceFiles(folder: string): string[] {
  const found: string[] = []
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...sourceFiles(full))
    } else if (/\.(ts|svelte)$/.test(entry.name) && !/\.(test|bench)\.ts$/.test(entry.name)) {
      found.push(full)
    }
  }
  return found
}

/** Every module's relative imports, resolved to files. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const sourceRoot of sourceRoots) {
    for (const file of sourceFiles(path.join(root, sourceRoot))) {
      const text = fs.readFileSync(file, 'utf8')
      const targets: string[] = []
      for (const match of text.matchAll(importPattern)) {
        const target = path.resolve(path.dirname(file), match[1]!)
        if (fs.existsSync(target)) targets.push(target)
      }
      graph.set(file, targets)
    }
  }
  return graph
}

/** Strongly connected components of more than one module (Tarjan), each a circle of imports. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string) => {
    index.set(file, next)
    low.set(file, next)
    next++
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!))
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(path.relative(root, member))
      } while (member !== file)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

describe('imports', () => {
  it('form no circles, type-only imports included', () => {
    expect(circles(importGraph())).toEqual([])
  })
})
