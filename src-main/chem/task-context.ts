import type { ChemTaskKind, ChemTaskProgress } from './worker-protocol.ts'

export interface TaskContext<K extends ChemTaskKind> {
  progress(progress: ChemTaskProgress<K>): void
  throwIfCancelled(): void
}
