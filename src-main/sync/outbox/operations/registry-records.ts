import { isObject, type JsonObject } from '../../../../src-common/values.ts'
import { recordEdit } from './record-edit.ts'
import { sameProjects, sameValue } from './same-values.ts'
import {
  batchCorrection,
  moleculeCorrection,
  type BatchCorrection,
  type MoleculeCorrection,
} from '../../../../src-common/outbox/payloads/registry-records.ts'

/** Field values as records hold them: a map by name, of values or `{value}` objects. */
function holdsFields(sent: Record<string, unknown> | undefined, held: unknown): boolean {
  if (sent === undefined) return true
  const fields: JsonObject = isObject(held) ? held : {}
  return Object.entries(sent).every(([name, value]) => {
    const current = fields[name]
    return sameValue(value, isObject(current) && 'value' in current ? current.value : current)
  })
}

function holdsProjects(sent: readonly (number | string)[] | undefined, held: unknown): boolean {
  return sent === undefined || sameProjects(sent, held)
}

const projectsOverlay = (projects: readonly (number | string)[] | undefined) =>
  projects === undefined
    ? {}
    : {
        projects: projects.map((project) =>
          typeof project === 'number' ? { id: project } : { name: project },
        ),
      }

/** Molecule field updates; synonyms, projects and collections replace the old lists. */
export const moleculeUpdate = recordEdit<MoleculeCorrection>({
  name: 'molecule.update',
  schema: moleculeCorrection,
  read: (context, id) =>
    context.client.molecules.get(context.vaultId, id, { no_structures: true }, context.options),
  write: (context, id, payload) =>
    context.client.molecules.update(context.vaultId, id, payload.changes, context.options),
  holds({ changes }, record) {
    return (
      (changes.name === undefined || sameValue(changes.name, record.name)) &&
      (changes.description === undefined || sameValue(changes.description, record.description)) &&
      (changes.synonyms === undefined || sameValue(changes.synonyms, record.synonyms ?? [])) &&
      holdsFields(changes.udfs, record.molecule_fields ?? record.udfs) &&
      holdsProjects(changes.projects, record.projects) &&
      (changes.collections === undefined ||
        sameProjects(changes.collections, record.collections ?? []))
    )
  },
  overlay: ({ changes }) => ({
    set: {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.synonyms !== undefined ? { synonyms: changes.synonyms } : {}),
      ...(changes.udfs !== undefined ? { molecule_fields: changes.udfs, udfs: changes.udfs } : {}),
      ...projectsOverlay(changes.projects),
      ...(changes.collections !== undefined
        ? { collections: changes.collections.map((id) => ({ id })) }
        : {}),
    },
  }),
})

/** Batch field updates (never the parent structure: molecules are updated on their own). */
export const batchUpdate = recordEdit<BatchCorrection>({
  name: 'batch.update',
  schema: batchCorrection,
  read: (context, id) =>
    context.client.batches.get(
      context.vaultId,
      id,
      { no_structures: true, only_molecule_ids: true },
      context.options,
    ),
  write: (context, id, payload) =>
    context.client.batches.update(context.vaultId, id, payload.changes, context.options),
  holds({ changes }, record) {
    const { projects, batch_fields: fields, ...plain } = changes
    return (
      Object.entries(plain).every(([member, value]) => sameValue(value, record[member])) &&
      holdsFields(fields, record.batch_fields) &&
      holdsProjects(projects, record.projects)
    )
  },
  overlay: ({ changes }) => {
    const { projects, ...plain } = changes
    return { set: { ...plain, ...projectsOverlay(projects) } }
  },
})
