import type { Command } from '../command.ts'
import { connectCommand } from './connect.ts'
import { curvesCommand } from './curves.ts'
import { exportCommand } from './export.ts'
import { findCommand } from './find.ts'
import { importCommand } from './import.ts'
import { infoCommand } from './info.ts'
import { plateCommand, sampleCommand } from './inventory.ts'
import { outboxCommand } from './outbox.ts'
import { registerCommand } from './register.ts'
import { searchesCommand } from './searches.ts'
import { statusCommand } from './status.ts'
import { syncCommand } from './sync.ts'
import { uploadCommand } from './upload.ts'
import { watchCommand } from './watch.ts'

/** Every command of `vault-desk`, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  connectCommand,
  syncCommand,
  statusCommand,
  findCommand,
  searchesCommand,
  exportCommand,
  curvesCommand,
  uploadCommand,
  importCommand,
  registerCommand,
  watchCommand,
  sampleCommand,
  plateCommand,
  outboxCommand,
  infoCommand,
]
