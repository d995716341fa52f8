import type { VaultSim } from '../../src-sim/index.ts'
import { client, record } from './http.ts'
import type { Client } from './http.ts'

/** Clients for the seeded cast, and the main vault's path prefix. */
export function cast(sim: VaultSim) {
  const { users, vaults, projects } = sim.cast
  return {
    admin: client(sim.baseUrl, users.admin.tokens[0]),
    writer: client(sim.baseUrl, users.writer.tokens[0]),
    reader: client(sim.baseUrl, users.reader.tokens[0]),
    outsider: client(sim.baseUrl, users.outsider.tokens[0]),
    main: `/vaults/${vaults.main.id}`,
    ai: `/vaults/${vaults.ai.id}`,
    closed: `/vaults/${vaults.closed.id}`,
    projects,
    vaults,
    users,
  }
}

/** Creates a molecule through the API and answers its record. */
export async function createMolecule(
  api: Client,
  vaultPath: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = await api.post(`${vaultPath}/molecules`, body)
  if (answer.status !== 200)
    throw new Error(`Creating a molecule failed: ${answer.status} ${JSON.stringify(answer.json)}`)
  return record(answer)
}

export function idOf(value: Record<string, unknown>): number {
  if (typeof value.id !== 'number') throw new Error(`No id in ${JSON.stringify(value)}`)
  return value.id
}

export function objectsOf(value: Record<string, unknown>): Record<string, unknown>[] {
  if (!Array.isArray(value.objects)) throw new Error(`No objects in ${JSON.stringify(value)}`)
  return value.objects as Record<string, unknown>[]
}
