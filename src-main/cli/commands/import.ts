import path from 'node:path'
import { AppError } from '../../shared/app-error.ts'
import type { Command } from '../command.ts'
import { chooseConnection, stringOption } from '../connection-choice.ts'
import { vaultIdOption } from '../vault-option.ts'
import { deliver, deliveryExitCode, describeDelivery } from './outbox-delivery.ts'

const usage =
  'vault-desk import --vault V FILE --project P [--mapping-template T] [--connection NAME] [--json]'

/** An id when the text is a whole number, else a name the server resolves. */
function idOrName(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value
}

/**
 * `vault-desk import`: queues a data import (CSV, SDF, XLSX or ZIP) into a project, with a
 * mapping template by id or name, then sends what is queued unless the app does.
 */
export const importCommand: Command = {
  name: 'import',
  summary: 'Queue a data import (CSV, SDF, XLSX, ZIP) into a project, and send it when online.',
  usage,
  options: {
    vault: { type: 'string' },
    project: { type: 'string' },
    'mapping-template': { type: 'string' },
  },
  syncsOrSends: () => true,
  queuesForTheHolder: true,
  async run(context) {
    const vaultId = vaultIdOption(context.values.vault)
    const project = stringOption(context.values.project)
    if (vaultId === undefined || project === undefined) {
      throw new AppError(
        'invalid_argument',
        `import needs --vault V and --project P. usage: ${usage}`,
      )
    }
    const [file, ...extra] = context.positionals
    if (file === undefined || extra.length > 0) {
      throw new AppError('invalid_argument', `import takes one FILE. usage: ${usage}`)
    }
    const template = stringOption(context.values['mapping-template'])
    const services = context.services()
    const { runtime } = chooseConnection(context)
    const items = await services.outbox.queue({
      connectionId: runtime.id,
      vaultId,
      operation: 'slurp.create',
      file: path.resolve(file),
      payload: {
        project: idOrName(project),
        ...(template !== undefined ? { mapping_template: idOrName(template) } : {}),
      },
    })
    const delivery = await deliver(services, items, context.holder)
    return {
      document: delivery,
      exitCode: deliveryExitCode(delivery),
      human: () => describeDelivery(delivery),
    }
  },
}
