import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The packaging config as electron-builder itself reads it (`npm run dist`): its own reader of
 * electron-builder.yml, its own schema check, and its own translation of `electronFuses` into the
 * fuse wire of @electron/fuses, the bits flipped in the signed Electron binary.
 */
const require = createRequire(import.meta.url)
const projectDir = path.resolve(import.meta.dirname, '../..')
// app-builder-lib's index first: its modules need one another loaded in its own order.
const { PlatformPackager } = require('app-builder-lib')
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js')
const { DebugLogger } = require('builder-util')
const { FuseV1Options } = require('@electron/fuses')

interface BuilderConfig {
  electronFuses?: Record<string, unknown> | null
  [key: string]: unknown
}

async function packagingConfig(): Promise<BuilderConfig> {
  const config = (await getConfig(projectDir, null, null)) as BuilderConfig
  await validateConfiguration(config, new DebugLogger(false))
  return config
}

/** The fuses electron-builder would flip, by their names in @electron/fuses. */
async function fuseWire(config: BuilderConfig): Promise<Record<string, unknown>> {
  // Without `electronFuses` electron-builder flips nothing.
  if (!config.electronFuses) return {}
  const wire = await PlatformPackager.prototype.generateFuseConfig.call({}, config.electronFuses)
  const named: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(wire as Record<string, unknown>)) {
    if (/^\d+$/.test(key)) named[FuseV1Options[Number(key)] as string] = value
  }
  return named
}

describe('packaging', () => {
  it('is a valid electron-builder config that sets the Electron fuses', async () => {
    const config = await packagingConfig()
    expect(await fuseWire(config)).toEqual({
      // ELECTRON_RUN_AS_NODE would make the signed app a plain Node for any script.
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
      EnableCookieEncryption: true,
      GrantFileProtocolExtraPrivileges: false,
    })
  }, 30_000)
})
