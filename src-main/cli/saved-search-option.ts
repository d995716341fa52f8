/**
 * `find --saved NAME`: a saved search of the vault as the question of an offline list. A search
 * with parts the local search cannot ask is refused, naming them, unless `--translatable-part`
 * asks for the rest; then the parts left out are said on stderr.
 */
import type { Services } from '../services/index.ts'
import { AppError } from '../shared/app-error.ts'
import type { CommandContext, OptionSpec } from './command.ts'
import type { CliListQuestion } from './list-question.ts'
import { vaultIdOption } from './vault-option.ts'

export const savedSearchOptions: OptionSpec = {
  saved: { type: 'string' },
  'translatable-part': { type: 'boolean' },
}

export const savedSearchUsage = '--vault ID --saved NAME [--translatable-part]'

/** Options of a typed search, which a saved search replaces. */
const searchOptions = ['text', 'field', 'readout', 'substructure', 'exact', 'similar']

export function readSavedSearchQuestion(
  context: CommandContext,
  services: Services,
  connectionId: string,
): CliListQuestion {
  const { values } = context
  const name = String(values.saved)
  const vaultId = vaultIdOption(values.vault)
  if (vaultId === undefined) throw new AppError('invalid_argument', '--saved needs --vault ID.')
  const mixed = searchOptions.filter((option) => values[option] !== undefined)
  if (mixed.length > 0 || context.positionals.length > 0) {
    const given = [...context.positionals, ...mixed.map((option) => `--${option}`)]
    throw new AppError(
      'invalid_argument',
      `--saved runs a saved search as saved: it takes no KIND or search options (got ${given.join(', ')}).`,
    )
  }
  const run = services.searches.run(connectionId, vaultId, {
    search: name,
    translatablePart: values['translatable-part'] === true,
  })
  context.io.stderr(`Saved search '${run.search.name}': ${run.search.words}\n`)
  if (run.partial) {
    for (const part of run.search.untranslated) {
      context.io.stderr(`left out (not offline): ${part.words}: ${part.reason}\n`)
    }
  }
  return { vaultId, question: run.question }
}
