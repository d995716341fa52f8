import type { SavedSearchSummary } from '../../services/saved-searches-service.ts'
import { AppError } from '../../shared/app-error.ts'
import type { Command } from '../command.ts'
import { chooseConnection } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'

/** What `vault-desk searches --json` prints. */
export interface SearchesReport {
  vaultId: number
  searches: SavedSearchSummary[]
}

export const searchesCommand: Command = {
  name: 'searches',
  summary:
    "List a vault's saved searches from the cache: criteria in words, and whether each runs offline (find --saved NAME).",
  usage: 'vault-desk searches --vault ID [--json]',
  options: { vault: { type: 'string' } },
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    if (vaultId === undefined) throw new AppError('invalid_argument', 'searches needs --vault ID.')
    if (context.positionals.length > 0) {
      throw new AppError(
        'invalid_argument',
        `searches takes no arguments, got ${context.positionals.join(', ')}.`,
      )
    }
    const { runtime } = chooseConnection(context)
    const searches = context.services().searches.list(runtime.id, vaultId)
    const document: SearchesReport = { vaultId, searches }
    return { document, human: (report) => humanReport(report as SearchesReport) }
  },
}

function humanReport({ vaultId, searches }: SearchesReport): string {
  if (searches.length === 0) return `Vault ${vaultId} has no saved searches in the cache.\n`
  return searches
    .map((search) => {
      const runs = search.runsOffline ? 'runs offline' : 'does not run offline as saved'
      const project = search.project ? `, project ${search.project.name ?? search.project.id}` : ''
      const lines = [`${search.id}  ${search.name}  (${runs}${project})`, `    ${search.words}`]
      for (const part of search.untranslated) {
        lines.push(`    not offline: ${part.words}: ${part.reason}`)
      }
      return `${lines.join('\n')}\n`
    })
    .join('')
}
