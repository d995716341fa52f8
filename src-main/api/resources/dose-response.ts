import type { ApiContext } from '../api-context.ts'
import { call, vaultPath } from '../call.ts'
import { list } from '../envelope.ts'
import {
  anything,
  arrayOf,
  boolean,
  idOr,
  integer,
  mapOf,
  number,
  object,
  optional,
  string,
  type Infer,
} from '../shape.ts'
import type { CallOptions } from '../transport.ts'

export type EquationType =
  'Hill' | 'Biphasic' | 'Bell Curve' | 'Linear' | 'Exponential Decay' | 'Michaelis-Menten'

/** A constraint on one fit parameter. */
export type FitConstraint =
  | { modifier: '=' | '>' | '>=' | '<' | '<='; value: number }
  | { modifier: 'from'; range: { min: number; max: number } }
  | { modifier: 'best fit' }

const fitRange = object({ min: optional(number), max: optional(number) })

/**
 * A constraint as the vault sends it. The specification names `from`'s range object but not the
 * member that holds it: `range` as written, or `value` as some vaults send it. What the fits make
 * of each form is `src-common/analysis/dose-response/constraints.ts`.
 */
const fitConstraint = object({
  modifier: optional(string),
  value: optional<number | Infer<typeof fitRange>>((value) =>
    value !== null && typeof value === 'object' ? fitRange(value) : number(value),
  ),
  range: optional(fitRange),
})

const doseResponseCalculation = object({
  id: integer,
  equation_type: optional(string),
  fit_parameters: optional(mapOf(fitConstraint)),
  minimum_activity: optional(anything),
  readout_definition: optional(idOr(anything)),
})
export type DoseResponseCalculation = Infer<typeof doseResponseCalculation>

/** The curve of one batch in one run; its fit parameters override the calculation's. */
const doseResponseDataSeries = object({
  id: integer,
  equation_type: optional(string),
  fit_parameters: optional(mapOf(fitConstraint)),
  batch: optional(idOr(anything)),
  run: optional(idOr(anything)),
  points: optional(
    arrayOf(object({ x: optional(number), y: optional(number), outlier: optional(boolean) })),
  ),
})
export type DoseResponseDataSeries = Infer<typeof doseResponseDataSeries>

export interface DoseResponseCalculationUpdate {
  /** An empty object clears every constraint. */
  fit_parameters?: Record<string, FitConstraint>
  minimum_activity?: Record<string, unknown>
}

/** Dose response calculations of a protocol and their data series. */
export class DoseResponseApi {
  readonly #context: ApiContext

  constructor(context: ApiContext) {
    this.#context = context
  }

  calculations(
    vaultId: number,
    protocolId: number,
    options: CallOptions = {},
  ): Promise<DoseResponseCalculation[]> {
    const operation = 'doseResponse.calculations'
    return call(this.#context.transport, list(doseResponseCalculation), {
      ...options,
      operation,
      method: 'GET',
      path: this.#path(operation, vaultId, protocolId),
    })
  }

  calculation(
    vaultId: number,
    protocolId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<DoseResponseCalculation> {
    const operation = 'doseResponse.calculation'
    return call(this.#context.transport, doseResponseCalculation, {
      ...options,
      operation,
      method: 'GET',
      path: this.#path(operation, vaultId, protocolId, id),
    })
  }

  /** 422 names an unknown parameter, a bad modifier, a reversed range or a non-number. */
  updateCalculation(
    vaultId: number,
    protocolId: number,
    id: number,
    body: DoseResponseCalculationUpdate,
    options: CallOptions = {},
  ): Promise<DoseResponseCalculation> {
    const operation = 'doseResponse.updateCalculation'
    return call(this.#context.transport, doseResponseCalculation, {
      ...options,
      operation,
      method: 'PUT',
      path: this.#path(operation, vaultId, protocolId, id),
      json: body,
    })
  }

  dataSeries(
    vaultId: number,
    protocolId: number,
    calculationId: number,
    options: CallOptions = {},
  ): Promise<DoseResponseDataSeries[]> {
    const operation = 'doseResponse.dataSeries'
    return call(this.#context.transport, list(doseResponseDataSeries), {
      ...options,
      operation,
      method: 'GET',
      path: this.#path(operation, vaultId, protocolId, calculationId, 'dose_response_data_series'),
    })
  }

  series(
    vaultId: number,
    protocolId: number,
    calculationId: number,
    id: number,
    options: CallOptions = {},
  ): Promise<DoseResponseDataSeries> {
    const operation = 'doseResponse.series'
    return call(this.#context.transport, doseResponseDataSeries, {
      ...options,
      operation,
      method: 'GET',
      path: this.#path(
        operation,
        vaultId,
        protocolId,
        calculationId,
        'dose_response_data_series',
        id,
      ),
    })
  }

  updateSeries(
    vaultId: number,
    protocolId: number,
    calculationId: number,
    id: number,
    body: { fit_parameters: Record<string, FitConstraint> },
    options: CallOptions = {},
  ): Promise<DoseResponseDataSeries> {
    const operation = 'doseResponse.updateSeries'
    return call(this.#context.transport, doseResponseDataSeries, {
      ...options,
      operation,
      method: 'PUT',
      path: this.#path(
        operation,
        vaultId,
        protocolId,
        calculationId,
        'dose_response_data_series',
        id,
      ),
      json: body,
    })
  }

  #path(operation: string, vaultId: number, protocolId: number, ...rest: (string | number)[]) {
    return vaultPath(
      operation,
      vaultId,
      'protocols',
      protocolId,
      'dose_response_calculations',
      ...rest,
    )
  }
}
