/**
 * Typed access to `window.vaultDesk`, the one door from the renderer to main. The Electron preload
 * or the browser harness defines it before the app starts; the renderer never sees raw IPC.
 */
import type { VaultDeskBridge } from '../../../src-main/ipc/contract.ts'

declare global {
  interface Window {
    vaultDesk?: VaultDeskBridge
  }
}

export type {
  AddedConnection,
  AppInfo,
  AppNotice,
  AppStatus,
  AppEventName,
  CachedRecord,
  CachedRecordPage,
  CachedVault,
  DistinctColumnValue,
  ChemIndexProgress,
  ConnectionStatus,
  ConnectionSummary,
  ConnectionSyncState,
  Depiction,
  ErrorValue,
  EventPayload,
  LinkedCachedRecord,
  MoleculeProperties,
  OutboxChange,
  OutboxItemView,
  PendingRecord,
  PropertyName,
  PropertyRangesArgs,
  QueryDepiction,
  RecordKindInfo,
  RecordSearchHit,
  RemovedConnection,
  RequestArgs,
  RequestChannel,
  RequestResult,
  Result,
  ServerToolResult,
  StructureCriterionArgs,
  StructureIndexState,
  StructureQueryLanguage,
  StructureSearchInfo,
  SyncOutcome,
  SyncProgress,
  StagedFileView,
  SyncSettings,
  TokenPlace,
  VaultDeskBridge,
} from '../../../src-main/ipc/contract.ts'

export function hostBridge(): VaultDeskBridge {
  const bridge = window.vaultDesk
  if (!bridge) {
    throw new Error(
      'Vault Desk was opened without its host: window.vaultDesk is missing. Start it with ' +
        '`npm start` (Electron) or `npm run preview:web` (browser).',
    )
  }
  return bridge
}
