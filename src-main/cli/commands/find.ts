import { AppError } from '../../shared/app-error.ts'
import { recordKind } from '../../store/record-kinds.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'

/** What `vault-desk find --json` prints. */
export interface FindResult {
  kind: string
  /** Cached records that match (all of them, not only those printed). */
  count: number
  /** The cached records as the API gave them. */
  records: Record<string, unknown>[]
}

export const findCommand: Command = {
  name: 'find',
  summary: 'List or search cached records of a vault (molecules unless KIND is given), offline.',
  usage:
    'vault-desk find --vault ID [KIND] [--text T] [--field NAME=VALUE]... [--limit N] [--json]',
  options: {
    vault: { type: 'string' },
    text: { type: 'string' },
    field: { type: 'string', multiple: true },
    limit: { type: 'string' },
  },
  async run(context) {
    const { values, positionals } = context
    const vaultId = vaultIdOption(values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'find needs --vault ID.')
    if (positionals.length > 1) {
      throw new AppError('invalid_argument', `find takes one KIND, got ${positionals.join(', ')}.`)
    }
    const kind = recordKind(positionals[0] ?? 'molecules').name
    const limit = limitOption(values.limit)
    const fields = fieldOptions(values.field)
    const text = typeof values.text === 'string' ? values.text : undefined
    const { runtime } = chooseConnection(context)
    const page = runtime.cache.list(kind, vaultId, {
      ...(text !== undefined ? { text } : {}),
      ...(Object.keys(fields).length > 0 ? { fields } : {}),
      limit,
    })
    const result: FindResult = { kind, count: page.total, records: page.records }
    return {
      document: result,
      human: (document) => {
        const found = document as FindResult
        const lines = found.records.map(
          (record) => `  ${String(record.id)}  ${String(record.name ?? record.value ?? '')}`,
        )
        return `${found.count} ${found.kind}${found.count > found.records.length ? ` (first ${found.records.length})` : ''}\n${lines.join('\n')}\n`
      },
    }
  },
}

function limitOption(value: unknown): number {
  if (value === undefined) return 50
  const limit = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(limit >= 1 && limit <= 1000)) {
    throw new AppError(
      'invalid_argument',
      `--limit takes a number from 1 to 1000, not ${JSON.stringify(value)}.`,
    )
  }
  return limit
}

function fieldOptions(value: unknown): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const item of Array.isArray(value) ? value : []) {
    const text = String(item)
    const split = text.indexOf('=')
    if (split <= 0) {
      throw new AppError(
        'invalid_argument',
        `--field takes NAME=VALUE, not ${JSON.stringify(text)}.`,
      )
    }
    fields[text.slice(0, split).trim()] = text.slice(split + 1)
  }
  return fields
}
