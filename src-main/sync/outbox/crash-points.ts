/**
 * Where a test may have the sending process die, to prove that no work is lost or sent twice:
 * `before-request` (the item is committed as "sending", its request not yet sent) or
 * `after-answer` (the server has answered, nothing is committed yet). The middle step, a request
 * that reached the server before its sender died, is made by the test itself, which kills the
 * process when the simulator has received the request.
 *
 * The sender calls its `crashHook` at each point. Only a test entry gives one that acts (see
 * `test/outbox/support/outbox-child.ts`); the app's hook does nothing, and nothing a person can
 * set (an environment variable, a setting) makes it kill the process.
 */
export const crashPoints = ['before-request', 'after-answer'] as const

export type CrashPoint = (typeof crashPoints)[number]

export type CrashHook = (point: CrashPoint) => void

export const noCrash: CrashHook = () => {}
