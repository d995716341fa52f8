/** Dose-response curves: the six equations, their constraints, and local least-squares fits. */
export {
  EQUATIONS,
  EQUATION_TYPES,
  curveFrom,
  isEquationType,
  sampleCurve,
  type Curve,
  type CurveReading,
  type EquationDefinition,
  type EquationType,
} from './equations.ts'
export {
  mergeConstraints,
  readFitConstraints,
  type BoundModifier,
  type ConstraintsReading,
  type FitConstraint,
  type FitConstraints,
} from './constraints.ts'
export {
  fitDoseResponse,
  type DoseResponseFit,
  type FitOptions,
  type FitOutcome,
  type FitStatistics,
  type ParameterEstimate,
  type Potency,
} from './fit.ts'
export type {
  DoseResponsePointInput,
  ExcludedPoint,
  ExclusionReason,
  PointReport,
} from './points.ts'
