import type { Command } from '../command.ts'
import { connectCommand } from './connect.ts'
import { curvesCommand } from './curves.ts'
import { exportCommand } from './export.ts'
import { findCommand } from './find.ts'
import { importCommand } from './import.ts'
import { infoCommand } from './info.ts'
import { outboxCommand } from './outbox.ts'
import { searchesCommand } from './searches.ts'
import { statusCommand } from './status.ts'
import { syncCommand } from './sync.ts'
import { uploadCommand } from './upload.ts'

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
  outboxCommand,
  infoCommand,
]
