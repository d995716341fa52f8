import type { KindPulls } from '../kind-pull.ts'
import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import { integer, object, optional, string, type Infer } from '../shape.ts'
import type { CallOptions } from '../transport.ts'

/** The spec gives no attributes beyond the id; everything the server sends is kept. */
const registrationForm = object({ id: integer, name: optional(string) })
export type RegistrationForm = Infer<typeof registrationForm>

const registrationSystem = object({ id: integer, name: optional(string) })
export type RegistrationSystem = Infer<typeof registrationSystem>

/** Registration forms and systems of a registration vault. */
export class RegistrationApi {
  /** How sync reads registration forms and systems (src-main/sync/kind-plans.ts). */
  readonly pulls: KindPulls = {
    registration_forms: { fetch: (vaultId, call) => this.forms(vaultId, call) },
    registration_systems: { fetch: (vaultId, call) => this.systems(vaultId, call) },
  }

  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  forms(vaultId: number, options: CallOptions = {}): Promise<RegistrationForm[]> {
    const operation = 'registration.forms'
    return call(this.#context.transport, list(registrationForm), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'registration_forms'),
    })
  }

  form(vaultId: number, id: number, options: CallOptions = {}): Promise<RegistrationForm> {
    const operation = 'registration.form'
    return call(this.#context.transport, registrationForm, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'registration_forms', id),
    })
  }

  systems(vaultId: number, options: CallOptions = {}): Promise<RegistrationSystem[]> {
    const operation = 'registration.systems'
    return call(this.#context.transport, list(registrationSystem), {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'registration_systems'),
    })
  }

  system(vaultId: number, id: number, options: CallOptions = {}): Promise<RegistrationSystem> {
    const operation = 'registration.system'
    return call(this.#context.transport, registrationSystem, {
      ...options,
      operation,
      method: 'GET',
      path: vaultPath(operation, vaultId, 'registration_systems', id),
    })
  }
}
