/**
 * The outbox's states and the one table of the moves between them. The store guards each of its
 * updates with the states the move starts from (`startsOf`), the service refuses a person's
 * decision the table does not allow (`allows`), and the window offers only those (the predicates
 * below), so the three never disagree.
 */

/** Every state an item can be in, as its database stores it. */
export const outboxStates = [
  'queued',
  'sending',
  'sent',
  'needs_attention',
  'conflict',
  'uncertain',
  'cancelled',
] as const

/**
 * queued: waiting its turn (or its next attempt after a failure); sending: an attempt is under
 * way; sent: the server has it; needs_attention: the server refused it (the person fixes and
 * resends, or discards); conflict: the record changed on the server since editing began;
 * uncertain: it may or may not have arrived and the API cannot tell (the person decides);
 * cancelled: discarded by the person.
 */
export type OutboxState = (typeof outboxStates)[number]

/** Who makes a move: the sender, with what an attempt or a look-up found, or the person. */
export type Mover = 'sender' | 'person'

interface Transition {
  readonly by: Mover
  readonly from: readonly OutboxState[]
  readonly to: OutboxState
  /** Only an item whose earlier attempt may have arrived makes this move (it is looked up). */
  readonly onlyInDoubt?: boolean
}

/**
 * Every move an item can make, by the event or decision that makes it. Anything else is refused.
 * The sender's outcomes come from `queued` too: look-ups (the snapshot, the conflict check, the
 * look-up of an item in doubt) run before the attempt is committed as `sending`.
 */
export const outboxTransitions = {
  /** An attempt begins: committed before any request of it leaves. */
  attempt: { by: 'sender', from: ['queued'], to: 'sending' },
  /** The server answered the request: the only way an attempt ends as sent. */
  answered: { by: 'sender', from: ['sending'], to: 'sent' },
  /** A look-up found that an earlier attempt, which may have arrived, did. */
  foundArrived: { by: 'sender', from: ['queued'], to: 'sent', onlyInDoubt: true },
  /** Back in the queue for a later attempt (a failure worth retrying, a pause, a stop). */
  retryLater: { by: 'sender', from: ['queued', 'sending'], to: 'queued' },
  /** The process died while sending: the item is in doubt and looked up before any resend. */
  interrupted: { by: 'sender', from: ['sending'], to: 'queued' },
  /** The server refused it, or it cannot be sent as it is. */
  refused: { by: 'sender', from: ['queued', 'sending'], to: 'needs_attention' },
  /** The record changed on the server since editing began. */
  changedOnServer: { by: 'sender', from: ['queued', 'sending'], to: 'conflict' },
  /** Whether an attempt arrived cannot be told. */
  cannotTell: { by: 'sender', from: ['queued', 'sending'], to: 'uncertain' },

  /** Send again now: after a refusal, or during the wait after a failure. */
  retry: { by: 'person', from: ['queued', 'needs_attention'], to: 'queued' },
  /** A corrected payload, queued again in its place. */
  edit: { by: 'person', from: ['queued', 'needs_attention', 'conflict'], to: 'queued' },
  /** A conflict: send mine over the server's copy. */
  keepMine: { by: 'person', from: ['conflict'], to: 'queued' },
  /** A conflict: keep the server's copy; the item is discarded. */
  takeTheirs: { by: 'person', from: ['conflict'], to: 'cancelled' },
  /** Uncertain: the person saw that it did not arrive; it is sent again. */
  itDidNotArrive: { by: 'person', from: ['uncertain'], to: 'queued' },
  /** Uncertain: the person saw that it arrived. */
  itArrived: { by: 'person', from: ['uncertain'], to: 'sent' },
  /** Given up, with every item that depends on it. */
  discard: {
    by: 'person',
    from: ['queued', 'needs_attention', 'conflict', 'uncertain'],
    to: 'cancelled',
  },
} as const satisfies Record<string, Transition>

export type OutboxEvent = keyof typeof outboxTransitions

const transitions: Readonly<Record<OutboxEvent, Transition>> = outboxTransitions
const events = Object.keys(transitions) as OutboxEvent[]

/** The states an event moves an item from. */
export function startsOf(event: OutboxEvent): readonly OutboxState[] {
  return transitions[event].from
}

/** The state an event moves an item to. */
export function endOf(event: OutboxEvent): OutboxState {
  return transitions[event].to
}

/** Whether an item in `state` may make the move (`inDoubt` where the move asks for it). */
export function allows(state: OutboxState, event: OutboxEvent, inDoubt = true): boolean {
  const transition = transitions[event]
  return transition.from.includes(state) && (!transition.onlyInDoubt || inDoubt)
}

/** Whether only a move made when the item is in doubt leads there (see `onlyInDoubt`). */
export function needsDoubt(event: OutboxEvent): boolean {
  return transitions[event].onlyInDoubt === true
}

/** Final: nothing moves an item out of it (sent, cancelled). */
export function isSettled(state: OutboxState): boolean {
  return !events.some((event) => transitions[event].from.includes(state))
}

/** Whether only the person's decision moves an item on (refused, in conflict, uncertain). */
export function waitsForPerson(state: OutboxState): boolean {
  const out = events.filter((event) => transitions[event].from.includes(state))
  return out.length > 0 && out.every((event) => transitions[event].by === 'person')
}

/** States not yet settled: what the outbox still holds for the server or the person. */
export const unresolvedStates: readonly OutboxState[] = outboxStates.filter(
  (state) => !isSettled(state),
)

/** States that wait for the person, in the order the person should see them. */
export const personStates: readonly OutboxState[] = outboxStates.filter(waitsForPerson)

/**
 * The unresolved states, most pressing first: what waits for the person, then what is under
 * way, then what waits its turn. A record with several items shows the first of their states.
 */
export const byUrgency: readonly OutboxState[] = [...personStates, 'sending', 'queued']

/** Whether the person may give the item up. */
export function canDiscard(state: OutboxState): boolean {
  return allows(state, 'discard')
}

/**
 * Whether "send again" means something: a refused item, or one waiting after a failed attempt
 * (a queued item never tried is sent as soon as it can be anyway).
 */
export function canRetry(item: { state: OutboxState; attempts: number }): boolean {
  return allows(item.state, 'retry') && (item.state !== 'queued' || item.attempts > 0)
}

/** Whether the person decides between sending again and marking it done. */
export function isUncertain(state: OutboxState): boolean {
  return allows(state, 'itArrived') && allows(state, 'itDidNotArrive')
}

/** Whether the person chooses between their version and the server's. */
export function isConflict(state: OutboxState): boolean {
  return allows(state, 'keepMine') && allows(state, 'takeTheirs')
}
