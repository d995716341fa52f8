import type { VaultDeskBridge } from '../bridge.ts'
import { svgDataUrl } from './depiction-url.ts'

export type ServerTool = 'bioisosteres' | 'fragments' | 'similar'

export const serverTools: readonly { tool: ServerTool; label: string; empty: string }[] = [
  {
    tool: 'bioisosteres',
    label: 'Bioisosteres',
    empty: 'The vault suggests no bioisosteric replacements for this molecule.',
  },
  { tool: 'fragments', label: 'Fragments', empty: 'The vault found no fragments to cut.' },
  { tool: 'similar', label: 'Similar molecules', empty: 'The vault found no similar molecules.' },
]

export interface ShownToolResult {
  smiles: string
  /** The drawing as an image address; null when it could not be drawn. */
  url: string | null
  score?: number
  label?: string
}

export type ToolState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'done'; results: ShownToolResult[] }
  /** The vault is not answering: these come from the server only. */
  | { status: 'offline'; message: string }
  /** The vault has no deep-learning feature, or the token may not use it. */
  | { status: 'unavailable'; message: string }
  | { status: 'failed'; message: string }

/**
 * The vault's own suggestions for a molecule (online only): bioisosteres, fragments and similar
 * molecules, each asked once when the person first looks at it. Offline or refused answers can be
 * asked again; a vault without the feature says so once for every tool.
 */
export class ServerTools {
  tool = $state<ServerTool>('bioisosteres')
  states = $state<Record<ServerTool, ToolState>>({
    bioisosteres: { status: 'idle' },
    fragments: { status: 'idle' },
    similar: { status: 'idle' },
  })
  readonly #bridge: VaultDeskBridge
  readonly #target: { connectionId: string; vaultId: number; moleculeId: number }

  constructor(
    bridge: VaultDeskBridge,
    target: { connectionId: string; vaultId: number; moleculeId: number },
  ) {
    this.#bridge = bridge
    this.#target = target
  }

  get current(): ToolState {
    return this.states[this.tool]
  }

  /** The vault said it has no such feature: nothing here can work. */
  get unavailable(): boolean {
    return Object.values(this.states).some((state) => state.status === 'unavailable')
  }

  /** Shows a tool, asking the vault the first time (or again after it was away or failed). */
  show(tool: ServerTool): Promise<void> {
    this.tool = tool
    const state = this.states[tool]
    if (state.status === 'done' || state.status === 'loading' || state.status === 'unavailable') {
      return Promise.resolve()
    }
    return this.load(tool)
  }

  async load(tool: ServerTool): Promise<void> {
    this.states[tool] = { status: 'loading' }
    const result = await this.#bridge.invoke('chem.serverTools', { ...this.#target, tool })
    if (result.ok) {
      this.states[tool] = {
        status: 'done',
        results: result.value.results.map((found) => ({
          smiles: found.smiles,
          url: found.svg === null ? null : svgDataUrl(found.svg),
          ...(found.score !== undefined ? { score: found.score } : {}),
          ...(found.label !== undefined ? { label: found.label } : {}),
        })),
      }
      return
    }
    const { code, message } = result.error
    if (code === 'offline') this.states[tool] = { status: 'offline', message }
    else if (code === 'forbidden') {
      for (const each of serverTools) this.states[each.tool] = { status: 'unavailable', message }
    } else this.states[tool] = { status: 'failed', message }
  }
}
