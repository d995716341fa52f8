export type HostKind = 'electron' | 'cli' | 'web'

export interface AppInfo {
  name: string
  version: string
  host: HostKind
  /** `process.platform` of the main process (a plain string, the renderer has no Node types). */
  platform: string
  dataDir: string
  logFile: string
}
