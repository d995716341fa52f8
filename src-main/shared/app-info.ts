export type HostKind = 'electron' | 'cli' | 'web'

export interface AppInfo {
  name: string
  version: string
  host: HostKind
  platform: NodeJS.Platform
  dataDir: string
  logFile: string
}
