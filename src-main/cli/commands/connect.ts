import { AppError } from '../../shared/app-error.ts'
import type { AddedConnection } from '../../services/connections-service.ts'
import type { Command } from '../command.ts'
import { stringOption, tokenFromEnvironment } from '../connection-choice.ts'
import { readToken } from '../hidden-input.ts'

export const connectCommand: Command = {
  name: 'connect',
  summary: 'Save a connection: check the token with the server, keep it in the keychain.',
  usage:
    'vault-desk connect --name NAME --base-url URL [--token-env VAR] [--json]  (without --token-env, the token is typed unseen or piped on stdin)',
  options: { name: { type: 'string' } },
  async run(context) {
    const name = stringOption(context.values.name)
    const baseUrl = stringOption(context.values['base-url'])
    if (name === undefined || baseUrl === undefined) {
      throw new AppError('invalid_argument', 'connect needs --name NAME and --base-url URL.')
    }
    const token =
      context.values['token-env'] === undefined
        ? await readToken(context.io)
        : tokenFromEnvironment(context)
    if (token === '') {
      throw new AppError(
        'invalid_argument',
        'No token: type it when asked, pipe it on stdin, or name the environment variable that holds it with --token-env.',
      )
    }
    let added: AddedConnection
    try {
      added = await context.services().connections.add({ name, baseUrl, token, sessionOnly: false })
    } catch (error) {
      if (error instanceof AppError && error.code === 'keychain_unavailable') {
        throw new AppError(
          'keychain_unavailable',
          `${error.message} The command-line tool cannot keep a token for a session: use --base-url and --token-env on each command instead.`,
          { cause: error },
        )
      }
      throw error
    }
    return {
      document: added,
      human: (document) => {
        const { connection, vaults } = document as AddedConnection
        const list = vaults.map((vault) => `  ${vault.id}  ${vault.name ?? ''}`).join('\n')
        return `Saved "${connection.name}" (${connection.baseUrl}); its token is in the keychain.\nVaults:\n${list}\n`
      },
    }
  },
}
