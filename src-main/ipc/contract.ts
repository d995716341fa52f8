/**
 * The one contract between the UI and main: for every request channel the run-time schema of its
 * argument and the type of its result, and for every event its payload. Each host (Electron IPC,
 * browser harness) answers it through the same dispatcher; the renderer imports its types only.
 */
import type { z } from 'zod'
import type { AppEventName, AppEvents } from '../shared/events.ts'
import type { Result } from '../shared/result.ts'
import { appSchemas, type AppResults } from './app/contract.ts'
import { attachmentSchemas, type AttachmentResults } from './attachments/contract.ts'
import type { RequestChannel } from './channels.ts'
import { chemSchemas, type ChemResults } from './chem/contract.ts'
import { connectionSchemas, type ConnectionResults } from './connections/contract.ts'
import { curvesSchemas, type CurvesResults } from './curves/contract.ts'
import { demoSchemas, type DemoResults } from './demo/contract.ts'
import { exportSchemas, type ExportResults } from './exports/contract.ts'
import { intakeSchemas, type IntakeResults } from './intake/contract.ts'
import { outboxSchemas, type OutboxResults } from './outbox/contract.ts'
import { platesSchemas, type PlatesResults } from './plates/contract.ts'
import { recordSchemas, type RecordResults } from './records/contract.ts'
import { registrationSchemas, type RegistrationResults } from './registration/contract.ts'
import { resultsSchemas, type ResultsResults } from './results/contract.ts'
import { searchesSchemas, type SearchesResults } from './searches/contract.ts'
import { syncSchemas, type SyncResults } from './sync/contract.ts'
import { vaultSchemas, type VaultResults } from './vaults/contract.ts'
import { watchSchemas, type WatchResults } from './watch/contract.ts'

/** Each domain's schemas (`<domain>/contract.ts`), merged. */
export const requestSchemas = {
  ...appSchemas,
  ...connectionSchemas,
  ...demoSchemas,
  ...vaultSchemas,
  ...recordSchemas,
  ...resultsSchemas,
  ...curvesSchemas,
  ...platesSchemas,
  ...syncSchemas,
  ...outboxSchemas,
  ...registrationSchemas,
  ...chemSchemas,
  ...exportSchemas,
  ...intakeSchemas,
  ...searchesSchemas,
  ...watchSchemas,
  ...attachmentSchemas,
} satisfies Record<RequestChannel, z.ZodType>

export interface RequestResults
  extends
    AppResults,
    ConnectionResults,
    DemoResults,
    VaultResults,
    RecordResults,
    ResultsResults,
    CurvesResults,
    PlatesResults,
    SyncResults,
    OutboxResults,
    RegistrationResults,
    ChemResults,
    ExportResults,
    IntakeResults,
    SearchesResults,
    WatchResults,
    AttachmentResults {}

/** Fails to compile when the results and the channel list disagree. */
export type EveryResultTyped = AssertNever<
  Exclude<RequestChannel, keyof RequestResults> | Exclude<keyof RequestResults, RequestChannel>
>
type AssertNever<T extends never> = T

/** What a caller passes (defaults may be omitted). */
export type RequestArgs<C extends RequestChannel> = z.input<(typeof requestSchemas)[C]>
/** What a handler receives after validation. */
export type ValidatedArgs<C extends RequestChannel> = z.output<(typeof requestSchemas)[C]>
export type RequestResult<C extends RequestChannel> = RequestResults[C]
export type EventPayload<E extends AppEventName> = AppEvents[E]

/** `window.vaultDesk`: the only thing the preload (or the browser harness) gives a page. */
export interface VaultDeskBridge {
  invoke<C extends RequestChannel>(
    channel: C,
    args: RequestArgs<C>,
  ): Promise<Result<RequestResult<C>>>
  on<E extends AppEventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void
  /** The local path of a dropped file (Electron only; `null` where the host has no paths). */
  pathForFile(file: File): string | null
}

export type { RequestChannel } from './channels.ts'
export type { AppEventName } from '../shared/events.ts'
export type { Result } from '../shared/result.ts'
export type { ErrorValue, ErrorCode } from '../shared/app-error.ts'
export type { AppInfo } from '../shared/app-info.ts'
export type { AppStatus } from '../shared/app-status.ts'
export type { AppNotice } from '../shared/app-notices.ts'
export type { ConnectionSummary } from '../shared/connection.ts'
export type { ConnectionStatus, TokenPlace } from '../shared/connection-status.ts'
export type { ConnectionSyncState, SyncOutcome, SyncProgress } from '../shared/sync-status.ts'
export type { AddedConnection, RemovedConnection } from './connections/contract.ts'
export type { CachedVault } from './vaults/contract.ts'
export type {
  PointsAnswer,
  ResultsAnswer,
  ResultsCatalogue,
  SubjectAggregate,
} from './results/contract.ts'
export type {
  CurveCalculation,
  CurveComparison,
  CurvePoint,
  CurveSeries,
  CurvesAnswer,
  DrawnCurve,
  LocalFit,
  VaultFit,
} from './curves/contract.ts'
export type {
  CachedRecord,
  CachedRecordPage,
  DistinctColumnValue,
  LinkedCachedRecord,
  RecordKindInfo,
  RecordSearchHit,
  RecordSearchResult,
  StructureCriterionArgs,
  PropertyRangesArgs,
  StructureSearchInfo,
} from './records/contract.ts'
export type {
  Depiction,
  MoleculeProperties,
  PropertyName,
  QueryDepiction,
  ServerToolResult,
  StructureIndexState,
  StructureQueryLanguage,
} from './chem/contract.ts'
export type { ChemIndexProgress } from '../shared/events.ts'
export type {
  GroupStatistics,
  LineMean,
  Measure,
  PendingMark,
  PlateFlag,
  PlateQualityAnswer,
  PlateQualityThresholds,
  PlateReadout,
  PlateReadoutValues,
  PlateRowMarks,
  PlateStatisticsFigures,
  PlateSummary,
  PlateWellColumns,
  PlateWellValue,
  RunPlatesQualityAnswer,
  WellExclusion,
  WellGroup,
} from './plates/contract.ts'
export type { ExportFormat, ExportProgress, ExportStarted } from './exports/contract.ts'
export type {
  SavedSearchProposal,
  SavedSearchQuestion,
  SavedSearchRun,
  SavedSearchSaved,
  SavedSearchSummary,
  SavedSearchVaultRun,
  UntranslatedPart,
} from './searches/contract.ts'
export type { SyncSettings } from './sync/contract.ts'
export type {
  AttachmentBudget,
  AttachmentPreview,
  AttachmentStatus,
  AttachmentView,
} from './attachments/contract.ts'
export type { OutboxItemView, PendingRecord, StagedFileView } from './outbox/contract.ts'
export type { OutboxChange } from '../shared/events.ts'
export type {
  TakenFile,
  TakenOutcome,
  WatchActivity,
  WatchedFolderView,
  WatchSettings,
} from './watch/contract.ts'
export type {
  RegistrationField,
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  RegistrationResult,
} from './registration/contract.ts'
export type { ImportCheckReport, ImportProblem, ImportProblemKind } from './intake/contract.ts'
