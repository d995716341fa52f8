import { z } from 'zod'
import type { AppInfo } from '../../shared/app-info.ts'
import type { AppStatus } from '../../shared/app-status.ts'
import type { AppChannel } from './channels.ts'

const noArgs = z.object({}).strict()

export const appSchemas = {
  'app.info': noArgs,
  'app.status': noArgs,
} satisfies Record<AppChannel, z.ZodType>

export interface AppResults {
  'app.info': AppInfo
  'app.status': AppStatus
}
