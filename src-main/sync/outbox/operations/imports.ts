import type { Slurp, SlurpMetadata } from '../../../api/index.ts'
import { isObject, toLinkId } from '../../../../src-common/values.ts'
import { idsOf, newRecordOf, recordsOf } from './new-records.ts'
import { likenessLane } from '../lanes.ts'
import type { Operation } from './operation.ts'
import { queuedFile, uploadOptions } from './queued-file.ts'
import { sameValue } from './same-values.ts'
import {
  importSettings,
  type ImportSettings,
} from '../../../../src-common/outbox/payloads/imports.ts'

/** Whether an import listed by the server is this one: its file name and project. */
function isThisImport(slurp: unknown, fileName: string, project: number | string): boolean {
  if (!isObject(slurp)) return false
  const fileMatches = slurp.file_name === undefined || slurp.file_name === fileName
  const projectId = toLinkId(slurp.project)
  const projectName = isObject(slurp.project) ? slurp.project.name : slurp.project
  const projectMatches =
    slurp.project === undefined ||
    (typeof project === 'number' ? projectId === project : sameValue(project, projectName))
  return fileMatches && projectMatches
}

/**
 * A data import (slurp): the file with the person's choices of project, mapping template, runs
 * and how ambiguous and suspicious events are resolved. A 429 (too many imports running) waits
 * and retries. The server lists only the imports under way, so an attempt in doubt is found there
 * or is uncertain (a fast import may already have finished).
 */
export const slurpCreate: Operation<ImportSettings> = {
  name: 'slurp.create',
  schema: importSettings,
  refs: () => [],
  lane: (_payload, fileName) => likenessLane('import_of_file', fileName ?? ''),
  overlay: (payload, name) => ({
    create: {
      file_name: name,
      state: 'queued',
      project:
        typeof payload.project === 'number' ? { id: payload.project } : { name: payload.project },
    },
  }),
  snapshot: async (context) => ({
    ids: idsOf(await context.client.slurps.list(context.vaultId, {}, context.options)),
  }),
  async send(context, payload) {
    const attachment = queuedFile(context)
    const slurp: Slurp = await context.client.slurps.create(
      context.vaultId,
      { file: attachment.path, filename: attachment.name, metadata: payload as SlurpMetadata },
      uploadOptions(context, attachment.size),
    )
    return { serverId: slurp.id, record: slurp, follow: true }
  },
  async reconcile(context, payload) {
    if (context.item.snapshot === null) return { outcome: 'absent' }
    const name = queuedFile(context).name
    const found = await newRecordOf(context, async () =>
      recordsOf(await context.client.slurps.list(context.vaultId, {}, context.options)).filter(
        (slurp) => isThisImport(slurp, name, payload.project),
      ),
    )
    if (found.outcome === 'arrived') {
      return { ...found, sent: { ...found.sent, follow: true } }
    }
    if (found.outcome === 'absent') {
      return {
        outcome: 'unknown',
        reason:
          'it is not among the imports under way, and the server lists no others: it may not have arrived, or may have finished already',
      }
    }
    return found
  },
}
