/**
 * The names of every request and event that crosses from main to a window. Plain data with no
 * dependencies, so that the sandboxed preload can check names without bundling the schemas.
 * Each domain lists its own channels in `<domain>/channels.ts`.
 */
import { appChannels } from './app/channels.ts'
import { attachmentChannels } from './attachments/channels.ts'
import { chemChannels } from './chem/channels.ts'
import { connectionChannels } from './connections/channels.ts'
import { curvesChannels } from './curves/channels.ts'
import { demoChannels } from './demo/channels.ts'
import { exportChannels } from './exports/channels.ts'
import { intakeChannels } from './intake/channels.ts'
import { outboxChannels } from './outbox/channels.ts'
import { platesChannels } from './plates/channels.ts'
import { recordChannels } from './records/channels.ts'
import { registrationChannels } from './registration/channels.ts'
import { resultsChannels } from './results/channels.ts'
import { searchesChannels } from './searches/channels.ts'
import { syncChannels } from './sync/channels.ts'
import { vaultChannels } from './vaults/channels.ts'
import { watchChannels } from './watch/channels.ts'

export const requestChannels = [
  ...appChannels,
  ...connectionChannels,
  ...demoChannels,
  ...vaultChannels,
  ...recordChannels,
  ...resultsChannels,
  ...curvesChannels,
  ...platesChannels,
  ...syncChannels,
  ...outboxChannels,
  ...registrationChannels,
  ...chemChannels,
  ...exportChannels,
  ...intakeChannels,
  ...searchesChannels,
  ...watchChannels,
  ...attachmentChannels,
] as const

export type RequestChannel = (typeof requestChannels)[number]

export { appEventNames as eventChannels } from '../shared/events.ts'

/** Prefix of the Electron IPC channel names, so that foreign channels are easy to refuse. */
export const ipcPrefix = 'vault-desk:'

export function isRequestChannel(value: unknown): value is RequestChannel {
  return typeof value === 'string' && (requestChannels as readonly string[]).includes(value)
}
