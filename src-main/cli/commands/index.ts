import type { Command } from '../command.ts'
import { connectCommand } from './connect.ts'
import { findCommand } from './find.ts'
import { importCommand } from './import.ts'
import { infoCommand } from './info.ts'
import { outboxCommand } from './outbox.ts'
import { statusCommand } from './status.ts'
import { syncCommand } from './sync.ts'
import { uploadCommand } from './upload.ts'

/** Every command of `vault-desk`, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  connectCommand,
  syncCommand,
  statusCommand,
  findCommand,
  uploadCommand,
  importCommand,
  outboxCommand,
  infoCommand,
]
