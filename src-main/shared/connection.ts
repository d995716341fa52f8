/** A saved connection to a vault service. Its token lives in the OS keychain, never here. */
export interface ConnectionSummary {
  id: string
  name: string
  baseUrl: string
  createdAt: string
}
