import type { ConnectionStatus, ConnectionSummary } from '../bridge.ts'
import { BridgeDouble } from './bridge-double.ts'

export const lab: ConnectionSummary = {
  id: 'c1',
  name: 'Lab vault',
  baseUrl: 'https://vault.example.org/api/v1',
  createdAt: '2026-01-01T00:00:00Z',
}

export const labStatus: ConnectionStatus = {
  connectionId: 'c1',
  tokenPlace: 'keychain',
  needsNewToken: false,
  online: true,
  lastContactAt: '2026-01-01T00:00:00Z',
  demo: false,
  localCopy: null,
}

/**
 * A bridge that answers every channel a session asks at start with "nothing yet": no
 * connections, no vaults, no syncs. Tests then override the answers they are about.
 */
export function quietBridge(): BridgeDouble {
  return new BridgeDouble()
    .answer('app.info', async () => ({
      ok: true,
      value: {
        name: 'Vault Desk',
        version: '0.1.0',
        host: 'web',
        platform: 'linux',
        dataDir: '/tmp/vault-desk',
        logFile: '/tmp/vault-desk/logs/vault-desk.log',
      },
    }))
    .answer('app.status', async () => ({
      ok: true,
      value: { online: false, syncing: false, lastSyncAt: null, outboxPending: 0 },
    }))
    .answer('app.notices', async () => ({ ok: true, value: [] }))
    .answer('connections.list', async () => ({ ok: true, value: [] }))
    .answer('connections.status', async () => ({ ok: true, value: [] }))
    .answer('vaults.list', async () => ({ ok: true, value: [] }))
    .answer('records.kinds', async () => ({ ok: true, value: [] }))
    .answer('records.distinct', async () => ({ ok: true, value: [] }))
    .answer('records.list', async () => ({
      ok: true,
      value: { kind: 'projects', total: 0, rows: [] },
    }))
    .answer('sync.state', async () => ({ ok: true, value: [] }))
    .answer('sync.settings', async () => ({ ok: true, value: { intervalMinutes: 15 } }))
    .answer('outbox.list', async () => ({ ok: true, value: [] }))
    .answer('outbox.history', async () => ({ ok: true, value: [] }))
    .answer('outbox.counts', async () => ({
      ok: true,
      value: { queued: 0, sending: 0, needsAttention: 0, conflict: 0, uncertain: 0, pending: 0 },
    }))
    .answer('chem.indexState', async () => ({
      ok: true,
      value: { indexed: 0, total: 0, unparseable: 0, detailsPending: 0, building: false },
    }))
    .answer('chem.depictMany', async () => ({ ok: true, value: {} }))
    .answer('chem.properties', async () => ({ ok: true, value: { computed: {}, fromServer: [] } }))
}

/** A tiny SVG standing in for a drawing of `label`. */
export function svgOf(label: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="120"><text>${label}</text></svg>`
}
