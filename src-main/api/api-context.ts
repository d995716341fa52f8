import type { ExportRunner } from './export-runner.ts'
import type { Transport } from './transport.ts'

/** What every resource module of one connection works with. */
export interface ApiContext {
  readonly transport: Transport
  readonly exports: ExportRunner
}
