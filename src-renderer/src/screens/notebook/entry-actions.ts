/**
 * The status moves of a notebook entry (docs/spec/gaps.md), as buttons: which apply to a status,
 * what each needs from the person (a witness, a reason), and how the button reads.
 */
export type StatusAction =
  'submit' | 'approve' | 'reject' | 'cancel' | 'finalize' | 'reopen' | 'discard'

export interface StatusMove {
  action: StatusAction
  label: string
  /** What the dialog asks before the move is queued. */
  needs: 'witness' | 'reason' | 'confirmation'
  /** Said in the dialog: what the move does. */
  explanation: string
  danger?: boolean
}

const moves: Record<string, StatusMove[]> = {
  open: [
    {
      action: 'submit',
      label: 'Submit for witnessing…',
      needs: 'witness',
      explanation: 'The entry is locked and sent to a witness, who approves or rejects it.',
    },
    {
      action: 'finalize',
      label: 'Finalize…',
      needs: 'confirmation',
      explanation: 'The entry is locked as final without a witness (where the vault allows it).',
    },
    {
      action: 'discard',
      label: 'Discard entry…',
      needs: 'confirmation',
      explanation: 'The entry is marked as discarded in the vault. It cannot be edited afterwards.',
      danger: true,
    },
  ],
  submitted: [
    {
      action: 'approve',
      label: 'Approve…',
      needs: 'confirmation',
      explanation: 'As its witness, you approve the entry: it becomes final.',
    },
    {
      action: 'reject',
      label: 'Reject…',
      needs: 'reason',
      explanation: 'The entry goes back to its author, open, with your reason.',
    },
    {
      action: 'cancel',
      label: 'Withdraw submission…',
      needs: 'confirmation',
      explanation: 'The entry goes back to open, and the witness is no longer asked.',
    },
  ],
  finalized: [
    {
      action: 'reopen',
      label: 'Reopen…',
      needs: 'reason',
      explanation: 'The final entry is opened for changes again; the reason is kept with it.',
    },
  ],
}

/** The moves an entry of `status` can make. */
export function statusMoves(status: string | null): StatusMove[] {
  return moves[status ?? ''] ?? []
}
