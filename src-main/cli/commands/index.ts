import type { Command } from '../command.ts'
import { infoCommand } from './info.ts'

/** Every command of `vault-desk`, in the order `--help` lists them. */
export const commands: readonly Command[] = [infoCommand]
