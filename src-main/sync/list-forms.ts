import { ApiError, type ListForm } from '../api/index.ts'
import type { RecordKindName } from '../store/record-kinds.ts'
import type { VaultCache } from '../store/vault-cache.ts'
import { WriteBatch } from '../store/write-batch.ts'

/** The scope of a kind's sync state that holds the list form its vault answers. */
const listFormScope = 'list-form'

/**
 * Which form of a kind's list each vault answers. Sync asks the recommended POST `.../query`
 * form; the specification names it only for plates, and a server that answers it with 404 or 405
 * is asked the documented GET form instead. The form that answered is kept in the cache's sync
 * state, so later passes ask it first.
 */
export class ListForms {
  readonly #cache: VaultCache
  readonly #vaultId: number
  readonly #known = new Map<RecordKindName, ListForm>()

  constructor(cache: VaultCache, vaultId: number) {
    this.#cache = cache
    this.#vaultId = vaultId
  }

  /** The form to ask first: the one remembered, else the query form. */
  formOf(kind: RecordKindName): ListForm {
    let form = this.#known.get(kind)
    if (!form) {
      const saved = this.#cache.cursor(kind, this.#vaultId, listFormScope)
      form = isObjectWithForm(saved) && saved.form === 'get' ? 'get' : 'query'
      this.#known.set(kind, form)
    }
    return form
  }

  /**
   * Calls `ask` in the kind's form; when the query form is refused as unknown (404, 405), in the
   * GET form, which is then remembered. What the GET form answers, refusal included, is final.
   */
  async ask<T>(kind: RecordKindName, ask: (form: ListForm) => Promise<T>): Promise<T> {
    if (this.formOf(kind) === 'get') return ask('get')
    try {
      return await ask('query')
    } catch (error) {
      if (!isUnknownForm(error)) throw error
    }
    const answer = await ask('get')
    await this.#remember(kind, 'get')
    return answer
  }

  async #remember(kind: RecordKindName, form: ListForm): Promise<void> {
    if (this.#known.get(kind) === form) return
    this.#known.set(kind, form)
    await this.#cache.writer.commit(
      new WriteBatch().saveCursor(kind, this.#vaultId, { form }, listFormScope),
    )
  }
}

/** 404 (no such operation) or 405 (not allowed here): the server does not serve this form. */
function isUnknownForm(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 405)
}

function isObjectWithForm(value: unknown): value is { form: unknown } {
  return typeof value === 'object' && value !== null && 'form' in value
}
