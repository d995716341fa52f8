import { z } from 'zod'
import type { ConnectionSummary } from '../../shared/connection.ts'
import type { ConnectionChannel } from './channels.ts'

export const connectionSchemas = {
  'connections.list': z.object({}).strict(),
} satisfies Record<ConnectionChannel, z.ZodType>

export interface ConnectionResults {
  'connections.list': ConnectionSummary[]
}
