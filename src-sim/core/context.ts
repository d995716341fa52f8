import type { Database } from 'better-sqlite3'
import type { MultipartForm } from './multipart.ts'
import type { Params } from './params.ts'
import type { SimCore } from './sim-core.ts'

export type VaultRole = 'admin' | 'writer' | 'reader'

export interface SimUser {
  id: number
  firstName: string
  lastName: string
  email: string
  timeZone: string
  canWitnessEln: boolean
}

export interface SimVault {
  id: number
  name: string
  apiAccess: boolean
  deepLearning: boolean
  registrationSystem: boolean
  inventoryFields: boolean
  elnWitnessing: boolean
}

/**
 * What one user may do in one vault. Built for every vault request, and rebuilt by the export
 * engine when it renders an export later, so queries take this rather than the HTTP request.
 */
export interface VaultAccess {
  sim: SimCore
  db: Database
  user: SimUser
  tokenId: number
  vault: SimVault
  role: VaultRole
  isAdmin: boolean
  /** Admins and members with write permission. */
  canWrite: boolean
  /** May create projects (vault administrators, and members given that permission). */
  canManageProjects: boolean
  /** Projects whose data the user may read, ascending. */
  projectIds: readonly number[]
  /** Projects whose data the user may change. */
  writableProjectIds: readonly number[]
  canReadProject(projectId: number): boolean
  canEditProject(projectId: number): boolean
}

/** One HTTP request to an operation of the API. */
export interface RequestContext {
  sim: SimCore
  db: Database
  user: SimUser
  tokenId: number
  method: string
  /** The operation as the spec writes it, e.g. `GET /vaults/{vault_id}/molecules/{id}`. */
  operation: string
  /** The original query string. */
  search: URLSearchParams
  /** Path parameters; every one is an integer id. */
  pathId(name: string): number
  /** The vault and role of this request; present on every route below /vaults/{vault_id}. */
  access: VaultAccess
  /**
   * The operation's parameters: the JSON body for POST and PUT (the POST /query forms included),
   * the query string for GET and DELETE.
   */
  input(): Promise<Params>
  /** Parameters from the query string, whatever the method. */
  queryParams(): Params
  /** A multipart/form-data body; file parts stream to disk. */
  multipart(): Promise<MultipartForm>
}
