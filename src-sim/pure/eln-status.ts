/**
 * The ELN entry status machine (docs/spec/gaps.md). Witnessing is a vault setting: with it, an
 * entry is submitted to a witness who approves or rejects it; without it, the author finalizes
 * directly.
 */

export const ELN_STATUSES = ['open', 'submitted', 'finalized', 'discarded'] as const
export type ElnStatus = (typeof ELN_STATUSES)[number]

export const ELN_ACTIONS = [
  'submit',
  'approve',
  'reject',
  'cancel',
  'reopen',
  'finalize',
  'discard',
] as const
export type ElnAction = (typeof ELN_ACTIONS)[number]

interface Move {
  from: ElnStatus
  to: ElnStatus
  /** Which vault setting the action belongs to; undefined for both. */
  witnessing?: boolean
  requires?: 'witness' | 'reason'
}

const MOVES: Readonly<Record<ElnAction, Move>> = {
  submit: { from: 'open', to: 'submitted', witnessing: true, requires: 'witness' },
  approve: { from: 'submitted', to: 'finalized', witnessing: true },
  reject: { from: 'submitted', to: 'open', witnessing: true, requires: 'reason' },
  cancel: { from: 'submitted', to: 'open', witnessing: true },
  finalize: { from: 'open', to: 'finalized', witnessing: false },
  reopen: { from: 'finalized', to: 'open', requires: 'reason' },
  discard: { from: 'open', to: 'discarded' },
}

export function isElnAction(value: unknown): value is ElnAction {
  return typeof value === 'string' && (ELN_ACTIONS as readonly string[]).includes(value)
}

export type ElnMoveOutcome =
  { ok: true; status: ElnStatus; requires?: 'witness' | 'reason' } | { ok: false; reason: string }

/** Where the action leads from the current status, or why it is not permitted (a 409). */
export function elnMove(
  action: ElnAction,
  current: ElnStatus,
  witnessing: boolean,
): ElnMoveOutcome {
  const move = MOVES[action]
  if (move.witnessing !== undefined && move.witnessing !== witnessing) {
    return {
      ok: false,
      reason: `${action} is not available when witnessing is ${witnessing ? 'enabled' : 'disabled'} for the vault`,
    }
  }
  if (move.from !== current) {
    return { ok: false, reason: `an entry that is ${current} cannot be ${pastTense(action)}` }
  }
  return move.requires
    ? { ok: true, status: move.to, requires: move.requires }
    : { ok: true, status: move.to }
}

function pastTense(action: ElnAction): string {
  const forms: Record<ElnAction, string> = {
    submit: 'submitted',
    approve: 'approved',
    reject: 'rejected',
    cancel: 'canceled',
    reopen: 'reopened',
    finalize: 'finalized',
    discard: 'discarded',
  }
  return forms[action]
}
