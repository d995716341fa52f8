import fs from 'node:fs'
import path from 'node:path'
import type { VaultSim } from '../../src-sim/index.ts'
import type { Logger } from '../shared/logger.ts'
import { createPrivateFile, createPrivateFolder, makeTreePrivate } from '../shared/private-files.ts'
import type { AddedConnection, ConnectionsService } from './connections-service.ts'

export interface DemoVaultOptions {
  dataDir: string
  connections: ConnectionsService
  log: Logger
}

/**
 * The built-in demo vault: the simulator, run in this process on loopback with its data in
 * `<dataDir>/demo-vault/vault.db` (private, as the rest of the data folder), and a "Demo vault"
 * connection to it as its administrator. The simulator derives the same tokens from its file each
 * time, so the token is kept for the session only; the connection's address is updated at every
 * start (the port is free-chosen).
 */
export class DemoVault {
  readonly #options: DemoVaultOptions
  #sim: VaultSim | undefined
  #opening: Promise<AddedConnection> | undefined

  constructor(options: DemoVaultOptions) {
    this.#options = options
  }

  /** Starts the simulator (once per run) and answers the demo connection. */
  open(): Promise<AddedConnection> {
    this.#opening ??= this.#start().catch((error: unknown) => {
      this.#opening = undefined
      throw error
    })
    return this.#opening
  }

  async close(): Promise<void> {
    const sim = this.#sim
    this.#sim = undefined
    this.#opening = undefined
    await sim?.stop()
  }

  async #start(): Promise<AddedConnection> {
    const { dataDir, connections, log } = this.#options
    const folder = path.join(dataDir, 'demo-vault')
    createPrivateFolder(folder)
    // Loaded on demand: the simulator (and its chemistry) costs nothing until the demo is opened.
    const { startVaultSim, IncompatibleDatabaseError } = await import('../../src-sim/index.ts')
    const db = path.join(folder, 'vault.db')
    const start = () => {
      // Made private before the simulator opens it, so that SQLite's companions follow its mode.
      if (!fs.existsSync(db)) createPrivateFile(db)
      return startVaultSim({ port: 0, seed: 'demo', db })
    }
    const sim = await start().catch((error: unknown) => {
      if (!(error instanceof IncompatibleDatabaseError)) throw error
      // Made by an older simulator: the demo starts afresh, its old data set aside.
      const aside = setAside(db)
      log.warn('demo vault made by an older simulator, set aside', { aside })
      return start()
    })
    this.#sim = sim
    try {
      // The simulator makes its files folder with the process's default mode.
      makeTreePrivate(folder)
    } catch (error) {
      log.warn('the demo vault folder could not be made private', { error: String(error) })
    }
    log.info('demo vault started', { baseUrl: sim.baseUrl })
    try {
      return await connections.openDemo('Demo vault', sim.baseUrl, sim.cast.users.admin.tokens[0]!)
    } catch (error) {
      await this.close()
      throw error
    }
  }
}

/** Moves the demo's database, its companions and its files folder into `replaced-<time>/`. */
function setAside(db: string): string {
  const aside = path.join(
    path.dirname(db),
    `replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`,
  )
  createPrivateFolder(aside)
  for (const suffix of ['', '-wal', '-shm', '-files']) {
    const file = db + suffix
    if (fs.existsSync(file)) fs.renameSync(file, path.join(aside, path.basename(file)))
  }
  return aside
}
