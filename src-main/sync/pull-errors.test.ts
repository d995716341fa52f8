import { describe, expect, it } from 'vitest'
import { ApiError } from '../api/index.ts'
import { throwIfCancelled } from './pull-errors.ts'

describe('a pull cancelled between kinds', () => {
  it('stops with the cancel a request gives, its cause the signal’s reason', () => {
    const controller = new AbortController()
    controller.abort()
    let thrown: unknown
    try {
      throwIfCancelled(controller.signal, 'pull of vault 7')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ApiError)
    expect(thrown).toMatchObject({ kind: 'cancelled', operation: 'pull of vault 7' })
    expect((thrown as ApiError).cause).toBe(controller.signal.reason)
  })

  it('goes on while the signal is not aborted, or when there is none', () => {
    expect(() => throwIfCancelled(new AbortController().signal, 'pull')).not.toThrow()
    expect(() => throwIfCancelled(undefined, 'pull')).not.toThrow()
  })
})
