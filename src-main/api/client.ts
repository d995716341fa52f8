import { silentLogger, type Logger } from '../shared/logger.ts'
import type { Redactor } from '../shared/redactor.ts'
import type { ApiContext } from './api-context.ts'
import { defaultRetryPolicy, type RetryPolicy } from './backoff.ts'
import { CallObservers, type ApiCallListener } from './call-observer.ts'
import { Credentials, type TokenRejectionListener, type TokenSource } from './credentials.ts'
import { defaultExportPolling, ExportRunner, type ExportPolling } from './export-runner.ts'
import { processLimiters, type LimiterRegistry } from './limiter-registry.ts'
import { BatchMoveJobsApi } from './resources/batch-move-jobs.ts'
import { BatchesApi } from './resources/batches.ts'
import { CollectionsApi } from './resources/collections.ts'
import { ControlLayoutsApi } from './resources/control-layouts.ts'
import { DataSetsApi } from './resources/data-sets.ts'
import { DeepLearningApi } from './resources/deep-learning.ts'
import { DoseResponseApi } from './resources/dose-response.ts'
import { ElnEntriesApi } from './resources/eln-entries.ts'
import { ExportsApi } from './resources/exports.ts'
import { FilesApi } from './resources/files.ts'
import { ImportParsersApi } from './resources/import-parsers.ts'
import { InventoryApi } from './resources/inventory.ts'
import { MappingTemplatesApi } from './resources/mapping-templates.ts'
import { MoleculesApi } from './resources/molecules.ts'
import { PickListValuesApi } from './resources/pick-list-values.ts'
import { PlatesApi } from './resources/plates.ts'
import { ProjectsApi } from './resources/projects.ts'
import { ProtocolsApi } from './resources/protocols.ts'
import { ReadoutRowsApi } from './resources/readout-rows.ts'
import { RegistrationApi } from './resources/registration.ts'
import { RunsApi } from './resources/runs.ts'
import { SearchesApi } from './resources/searches.ts'
import { SlurpsApi } from './resources/slurps.ts'
import { UsersApi } from './resources/users.ts'
import { VaultStatusApi } from './resources/vault-status.ts'
import { VaultsApi } from './resources/vaults.ts'
import type { KindPull, KindPulls } from './kind-pull.ts'
import { Transport } from './transport.ts'
import { defaultMaxBodyBytes } from './whole-body.ts'
import type { RecordKindName } from '../../src-common/records/record-kinds.ts'

export interface VaultClientOptions {
  /** The service's base URL, ending in its version segment (`https://host/api/v1`). */
  baseUrl: string
  /** The token, or a function that reads it when a request needs it (from the keychain). */
  token: TokenSource
  logger?: Logger
  /** Tokens are registered here as they are read, so that no log line can carry one. */
  redactor?: Redactor
  /** Per attempt; for downloads the longest silence between two chunks. Default 30 s. */
  timeoutMs?: number
  retry?: Partial<RetryPolicy>
  /**
   * The largest answer read whole (pages, records, small files; exports and downloads stream).
   * A larger one fails as `bad_response` naming the limit. Default 64 MiB.
   */
  maxBodyBytes?: number
  exportPolling?: Partial<ExportPolling>
  /** Shared by every client of the process unless a test gives its own. */
  limiters?: LimiterRegistry
}

const defaultTimeoutMs = 30_000

/**
 * The typed client of one connection (a server and a token), used by sync, the outbox, the CLI
 * and the UI. Every operation of the spec is a method of one of the resource families below;
 * every failure is an ApiError. Limits are per user across the whole process.
 */
export class VaultClient {
  readonly vaults: VaultsApi
  readonly pickListValues: PickListValuesApi
  readonly batchMoveJobs: BatchMoveJobsApi
  readonly batches: BatchesApi
  readonly collections: CollectionsApi
  readonly controlLayouts: ControlLayoutsApi
  readonly dataSets: DataSetsApi
  readonly elnEntries: ElnEntriesApi
  readonly exports: ExportsApi
  readonly files: FilesApi
  readonly importParsers: ImportParsersApi
  readonly mappingTemplates: MappingTemplatesApi
  readonly registration: RegistrationApi
  readonly inventory: InventoryApi
  readonly molecules: MoleculesApi
  readonly plates: PlatesApi
  readonly projects: ProjectsApi
  readonly protocols: ProtocolsApi
  readonly readoutRows: ReadoutRowsApi
  readonly runs: RunsApi
  readonly searches: SearchesApi
  readonly slurps: SlurpsApi
  readonly vaultStatus: VaultStatusApi
  readonly users: UsersApi
  readonly doseResponse: DoseResponseApi
  readonly deepLearning: DeepLearningApi
  readonly #pulls: ReadonlyMap<string, KindPull>
  readonly #credentials: Credentials
  readonly #observers = new CallObservers()

  constructor(options: VaultClientOptions) {
    const logger = (options.logger ?? silentLogger).child({ component: 'api' })
    this.#credentials = new Credentials(options.token, options.redactor)
    const transport = new Transport({
      baseUrl: options.baseUrl,
      credentials: this.#credentials,
      limiters: options.limiters ?? processLimiters,
      logger,
      timeoutMs: options.timeoutMs ?? defaultTimeoutMs,
      retry: { ...defaultRetryPolicy, ...options.retry },
      maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
      observers: this.#observers,
    })
    this.exports = new ExportsApi(transport)
    const context: ApiContext = {
      transport,
      exports: new ExportRunner(
        transport,
        this.exports,
        { ...defaultExportPolling, ...options.exportPolling },
        logger,
      ),
    }
    this.vaults = new VaultsApi(context)
    this.pickListValues = new PickListValuesApi(context, (vaultId, call) =>
      this.vaults.fields(vaultId, call),
    )
    this.batchMoveJobs = new BatchMoveJobsApi(context)
    this.batches = new BatchesApi(context)
    this.collections = new CollectionsApi(context)
    this.controlLayouts = new ControlLayoutsApi(context)
    this.dataSets = new DataSetsApi(context)
    this.elnEntries = new ElnEntriesApi(context)
    this.files = new FilesApi(context)
    this.importParsers = new ImportParsersApi(context)
    this.mappingTemplates = new MappingTemplatesApi(context)
    this.registration = new RegistrationApi(context)
    this.inventory = new InventoryApi(context)
    this.molecules = new MoleculesApi(context)
    this.plates = new PlatesApi(context)
    this.projects = new ProjectsApi(context)
    this.protocols = new ProtocolsApi(context)
    this.readoutRows = new ReadoutRowsApi(context)
    this.runs = new RunsApi(context)
    this.searches = new SearchesApi(context)
    this.slurps = new SlurpsApi(context)
    this.vaultStatus = new VaultStatusApi(context)
    this.users = new UsersApi(context)
    this.doseResponse = new DoseResponseApi(context)
    this.deepLearning = new DeepLearningApi(context)
    this.#pulls = pullsOf(Object.values(this))
  }

  /** True after the server refused the token itself, until a different token is supplied. */
  get needsNewToken(): boolean {
    return this.#credentials.needsNewToken
  }

  /** Called once per refused token; the sync layer stops and asks the person for a new one. */
  onNeedsNewToken(listener: TokenRejectionListener): () => void {
    return this.#credentials.onRejected(listener)
  }

  /**
   * Tells `listener` of every HTTP attempt as it ends (retries and failures included): how the
   * server answered, how long it took and the server's clock (the `Date` header). Answers a
   * function that stops listening.
   */
  onCall(listener: ApiCallListener): () => void {
    return this.#observers.add(listener)
  }

  /** A new token (or way of reading it), after the person supplied one. */
  setToken(token: TokenSource): void {
    this.#credentials.replace(token)
  }

  /** The calls that read a kind for sync, from the resource that serves it (its `pulls`). */
  pullOf(kind: RecordKindName): KindPull | undefined {
    return this.#pulls.get(kind)
  }
}

/** Every kind the resources serve to sync, each from exactly one resource. */
function pullsOf(resources: readonly unknown[]): Map<string, KindPull> {
  const pulls = new Map<string, KindPull>()
  for (const resource of resources) {
    const served = (resource as { pulls?: KindPulls } | null)?.pulls
    for (const [kind, pull] of Object.entries(served ?? {})) {
      if (pulls.has(kind)) throw new Error(`Two API resources serve ${kind} to sync.`)
      pulls.set(kind, pull)
    }
  }
  return pulls
}
