/**
 * Registering compounds: a new molecule (`POST /molecules`, vaults without a registration
 * system) and a new batch (`POST /batches`) of a molecule named by id, by the outbox item creating
 * it, or of a new structure (registration vaults number the molecule it creates).
 *
 * A create in doubt after a crash is looked up by its structure and name, never sent twice: a new
 * molecule by its name (unique in a vault) among the molecules of exactly its structure; a new
 * batch among the batches that appeared since the snapshot on its molecule, or on the molecules of
 * exactly its structure.
 */
import { createHash } from 'node:crypto'
import type { BatchWrite, MoleculeCreate } from '../../../api/index.ts'
import { toId, type JsonObject } from '../../../../src-common/values.ts'
import {
  isNewStructure,
  newBatch,
  newMolecule,
  structureOf,
  type NewBatch,
  type NewMolecule,
  type NewStructure,
} from '../../../../src-common/outbox/payloads/registry-records.ts'
import { offlineRefs } from '../../../../src-common/outbox/record-ref.ts'
import { likenessLane } from '../lanes.ts'
import { idsOf, newRecordOf } from './new-records.ts'
import type { Operation, SendContext, Sent } from './operation.ts'

const projectsView = (projects: readonly (number | string)[]) =>
  projects.map((project) => (typeof project === 'number' ? { id: project } : { name: project }))

/** A structure as the API's write bodies take it: a molfile goes in the `structure` member. */
function structureMember(record: NewMolecule | NewStructure): Record<string, string> {
  const { member, text } = structureOf(record)
  return member === 'molfile' ? { structure: text } : { [member]: text }
}

/** A lane key for a structure: its text is long, and only its sameness matters. */
function structureKey(record: NewMolecule | NewStructure): string {
  return createHash('sha256').update(structureOf(record).text.trim()).digest('hex').slice(0, 32)
}

const sent = (record: { id: number; modified_at?: string | null | undefined }): Sent => ({
  serverId: record.id,
  record: record as unknown as JsonObject,
  modifiedAt: record.modified_at ?? null,
})

/** The molecules whose structure is exactly this one (batches by id only). */
async function moleculesOfStructure(
  context: SendContext,
  structure: string,
): Promise<JsonObject[]> {
  const found: JsonObject[] = []
  for await (const molecule of context.client.molecules.queryAll(
    context.vaultId,
    { structure, structure_search_type: 'exact', only_batch_ids: true, no_structures: true },
    context.options,
  )) {
    found.push(molecule as unknown as JsonObject)
  }
  return found
}

async function moleculesNamed(context: SendContext, name: string): Promise<JsonObject[]> {
  const found: JsonObject[] = []
  for await (const molecule of context.client.molecules.queryAll(
    context.vaultId,
    { names: [name], no_structures: true, only_batch_ids: true },
    context.options,
  )) {
    found.push(molecule as unknown as JsonObject)
  }
  return found
}

/** Molecules of that name with exactly that structure (names are unique, so at most one). */
async function moleculesLike(context: SendContext, payload: NewMolecule): Promise<JsonObject[]> {
  const named = await moleculesNamed(context, payload.name)
  if (named.length === 0) return []
  const sameStructure = new Set(
    idsOf(await moleculesOfStructure(context, structureOf(payload).text)),
  )
  return named.filter((molecule) => sameStructure.has(toId(molecule.id) ?? -1))
}

export const moleculeCreate: Operation<NewMolecule> = {
  name: 'molecule.create',
  schema: newMolecule,
  refs: () => [],
  lane: (payload) => likenessLane('molecule', payload.name),
  overlay: (payload) => {
    const { udfs, projects, ...plain } = payload
    return {
      create: {
        ...plain,
        ...(udfs ? { molecule_fields: udfs } : {}),
        projects: projectsView(projects),
      },
    }
  },
  snapshot: async (context, payload) => ({
    ids: idsOf(await moleculesNamed(context, payload.name)),
  }),
  async send(context, payload) {
    const { smiles: _smiles, cxsmiles: _cxsmiles, molfile: _molfile, ...members } = payload
    const body: MoleculeCreate = { ...members, ...structureMember(payload) }
    return sent(await context.client.molecules.create(context.vaultId, body, context.options))
  },
  async reconcile(context, payload) {
    const found = await newRecordOf(context, () => moleculesLike(context, payload))
    if (found.outcome !== 'arrived' || found.sent.serverId === null) return found
    const id = found.sent.serverId
    return {
      ...found,
      sent: sent(await context.client.molecules.get(context.vaultId, id, {}, context.options)),
    }
  },
}

/** The ids of a molecule's batches, as the API lists them (ids or nested records). */
function batchIdsOf(molecule: JsonObject): number[] {
  const batches = Array.isArray(molecule.batches) ? molecule.batches : []
  return batches.flatMap((batch) => {
    const id = toId(typeof batch === 'object' && batch !== null ? (batch as JsonObject).id : batch)
    return id === null ? [] : [id]
  })
}

/** The batches that may be the new batch: of its molecule, or of the molecules of its structure. */
async function candidateBatches(context: SendContext, payload: NewBatch): Promise<JsonObject[]> {
  const molecules = isNewStructure(payload.molecule)
    ? await moleculesOfStructure(context, structureOf(payload.molecule).text)
    : [
        (await context.client.molecules.get(
          context.vaultId,
          context.resolve(payload.molecule),
          { only_batch_ids: true, no_structures: true },
          context.options,
        )) as unknown as JsonObject,
      ]
  return molecules.flatMap((molecule) => batchIdsOf(molecule).map((id) => ({ id })))
}

function batchWrite(context: SendContext, payload: NewBatch): BatchWrite {
  const { molecule, ...members } = payload
  if (!isNewStructure(molecule)) return { ...members, molecule: { id: context.resolve(molecule) } }
  return {
    ...members,
    molecule: {
      ...structureMember(molecule),
      duplicate_resolution: molecule.duplicate_resolution,
      ...(molecule.name !== undefined ? { name: molecule.name } : {}),
    },
  }
}

export const batchCreate: Operation<NewBatch> = {
  name: 'batch.create',
  schema: newBatch,
  refs: (payload) => (isNewStructure(payload.molecule) ? [] : offlineRefs(payload.molecule)),
  lane: (payload, _attachment, ref) =>
    isNewStructure(payload.molecule)
      ? likenessLane('batch_of_structure', structureKey(payload.molecule))
      : `new/batch/${ref(payload.molecule)}/of_molecule`,
  overlay: (payload) => {
    const { molecule, projects, ...plain } = payload
    return {
      create: {
        ...plain,
        projects: projectsView(projects),
        ...('id' in molecule ? { molecule: { id: molecule.id } } : {}),
        ...(isNewStructure(molecule)
          ? {
              molecule: Object.fromEntries(
                Object.entries(molecule).filter(([member]) => member !== 'duplicate_resolution'),
              ),
            }
          : {}),
      },
    }
  },
  snapshot: async (context, payload) => ({ ids: idsOf(await candidateBatches(context, payload)) }),
  async send(context, payload) {
    const batch = await context.client.batches.create(
      context.vaultId,
      batchWrite(context, payload),
      context.options,
    )
    return sent(batch)
  },
  async reconcile(context, payload) {
    const found = await newRecordOf(context, () => candidateBatches(context, payload))
    if (found.outcome !== 'arrived' || found.sent.serverId === null) return found
    const id = found.sent.serverId
    // The list gave its id only: the cache keeps the whole record.
    return {
      ...found,
      sent: sent(await context.client.batches.get(context.vaultId, id, {}, context.options)),
    }
  },
}
