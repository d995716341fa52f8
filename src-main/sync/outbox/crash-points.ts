/**
 * Where a test may have the process die while sending, to prove that no work is lost or sent
 * twice: `VAULT_DESK_TEST_CRASH_AT=before-request` (the item is committed as "sending", its request
 * not yet sent) or `after-answer` (the server has answered, nothing is committed yet). The middle
 * step, a request that reached the server before its sender died, is made by the test itself,
 * which kills the process when the simulator has received the request. Only tests set it.
 */
export type CrashPoint = 'before-request' | 'after-answer'

export function crashPoint(point: CrashPoint, env: NodeJS.ProcessEnv = process.env): void {
  if (env.VAULT_DESK_TEST_CRASH_AT === point) process.kill(process.pid, 'SIGKILL')
}
