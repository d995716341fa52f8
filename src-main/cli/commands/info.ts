import type { AppInfo } from '../../shared/app-info.ts'
import type { Command } from '../command.ts'

export const infoCommand: Command = {
  name: 'info',
  summary: 'Show the version, the data directory and the log file.',
  usage: 'vault-desk info [--json]',
  options: {},
  async run({ services }) {
    return {
      document: services().info(),
      human: (info) => {
        const { name, version, dataDir, logFile } = info as AppInfo
        return `${name} ${version}\ndata directory: ${dataDir}\nlog file:       ${logFile}\n`
      },
    }
  },
}
