import type { Database } from 'better-sqlite3'
import type { MultipartForm } from './multipart.ts'
import type { Params } from './params.ts'
import type { SimCore, VaultAccess } from './sim-core.ts'
import type { SimUser } from './users-and-vaults.ts'

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
