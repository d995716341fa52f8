import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import {
  anything,
  arrayOf,
  boolean,
  integer,
  object,
  optional,
  string,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'

const projectMember = object({
  id: integer,
  first_name: optional(string),
  last_name: optional(string),
  email: optional(string),
  can_manage_project: optional(boolean),
  can_edit_data: optional(boolean),
})
export type ProjectMember = Infer<typeof projectMember>

/** Lists and creates answer `{id, name}`; reading one project adds description and members. */
export const project = object({
  id: integer,
  name: optional(string),
  description: optional(string),
  members: optional(arrayOf(projectMember)),
})
export type Project = Infer<typeof project>

/** Members are written with `user_id`, not `id`. */
export interface ProjectMemberWrite {
  user_id: number
  can_manage_project?: boolean
  can_edit_data?: boolean
}

export interface ProjectWrite {
  name?: string
  description?: string
  /** Replaces the whole membership list. */
  members?: ProjectMemberWrite[]
}

export class ProjectsApi {
  /** How sync reads projects (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    projects: { fetch: (vaultId, call) => this.list(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  /** The projects this key can access. */
  list(vaultId: number, options: CallOptions = {}): Promise<Project[]> {
    const operation = 'projects.list'
    return call(this.#context.transport, list(project), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'projects'),
    })
  }

  create(
    vaultId: number,
    body: ProjectWrite & { name: string },
    options: CallOptions = {},
  ): Promise<Project> {
    const operation = 'projects.create'
    return call(this.#context.transport, project, {
      ...options,
      operation,
      method: 'POST',
      path: vaultPath(operation, vaultId, 'projects'),
      json: body,
    })
  }

  get(vaultId: number, id: number, options: CallOptions = {}): Promise<Project> {
    const operation = 'projects.get'
    return call(this.#context.transport, project, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'projects', id),
    })
  }

  update(
    vaultId: number,
    id: number,
    body: ProjectWrite,
    options: CallOptions = {},
  ): Promise<Project> {
    const operation = 'projects.update'
    return call(this.#context.transport, project, {
      ...options,
      operation,
      method: 'PUT',
      path: vaultPath(operation, vaultId, 'projects', id),
      json: body,
    })
  }

  /** Refused with 422 while runs, models or other data remain in the project. */
  delete(vaultId: number, id: number, options: CallOptions = {}): Promise<unknown> {
    const operation = 'projects.delete'
    return call(this.#context.transport, anything, {
      ...options,
      operation,
      method: 'DELETE',
      path: vaultPath(operation, vaultId, 'projects', id),
    })
  }
}
