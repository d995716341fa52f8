import { z } from 'zod'
import type { AddedConnection } from '../connections/contract.ts'
import type { DemoChannel } from './channels.ts'

export const demoSchemas = {
  'demo.open': z.object({}).strict(),
} satisfies Record<DemoChannel, z.ZodType>

export interface DemoResults {
  /**
   * Starts the built-in demo vault (the simulator, in this process, on loopback, its data kept in
   * `<dataDir>/demo-vault/`), adds or refreshes the "Demo vault" connection and starts its sync.
   * Opening it again while it runs answers the same connection.
   */
  'demo.open': AddedConnection
}
