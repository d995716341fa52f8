/**
 * The worker thread of the structure index's background pass: RDKit in a thread of its own, so
 * that reading a large vault's structures never holds up requests.
 */
import { parentPort } from 'node:worker_threads'
import { loadChemistry } from './chemistry.ts'
import { runIdentityTask } from './identity-tasks.ts'
import type { IdentityTask } from './identity-tasks.ts'

const chem = await loadChemistry()
parentPort!.on('message', (task: IdentityTask) => {
  parentPort!.postMessage(runIdentityTask(chem, task))
})
