import { describe, expect, it } from 'vitest'
import {
  allows,
  byUrgency,
  canDiscard,
  canRetry,
  endOf,
  isConflict,
  isSettled,
  isUncertain,
  outboxStates,
  outboxTransitions,
  personStates,
  startsOf,
  unresolvedStates,
  waitsForPerson,
  type OutboxEvent,
  type OutboxState,
} from './states.ts'

const events = Object.keys(outboxTransitions) as OutboxEvent[]

describe('the outbox state machine', () => {
  it('settles items only as sent or discarded; the person decides on three states', () => {
    expect(outboxStates.filter(isSettled)).toEqual(['sent', 'cancelled'])
    expect(unresolvedStates).toEqual([
      'queued',
      'sending',
      'needs_attention',
      'conflict',
      'uncertain',
    ])
    expect(personStates).toEqual(['needs_attention', 'conflict', 'uncertain'])
    expect(outboxStates.filter(waitsForPerson)).toEqual(personStates)
    expect([...byUrgency].sort()).toEqual([...unresolvedStates].sort())
    expect(byUrgency.slice(0, 3)).toEqual(personStates)
  })

  it('marks an item sent only when its attempt was answered, found to have arrived, or the person says so', () => {
    const toSent = events.filter((event) => endOf(event) === 'sent')
    expect(toSent.sort()).toEqual(['answered', 'foundArrived', 'itArrived'])
    expect(startsOf('answered')).toEqual(['sending'])
    expect(allows('queued', 'foundArrived', true)).toBe(true)
    expect(allows('queued', 'foundArrived', false)).toBe(false)
    expect(startsOf('itArrived')).toEqual(['uncertain'])
    for (const state of ['sent', 'cancelled', 'needs_attention', 'conflict'] as const) {
      expect(
        toSent.some((event) => allows(state, event)),
        state,
      ).toBe(false)
    }
  })

  it('reaches every state from a queued item, and lets every unsettled one move on', () => {
    const reached = new Set<OutboxState>(['queued'])
    for (let grew = true; grew;) {
      grew = false
      for (const event of events) {
        const to = endOf(event)
        if (!reached.has(to) && startsOf(event).some((state) => reached.has(state))) {
          reached.add(to)
          grew = true
        }
      }
    }
    expect([...reached].sort()).toEqual([...outboxStates].sort())
    for (const state of unresolvedStates) {
      expect(
        events.some((event) => allows(state, event)),
        state,
      ).toBe(true)
    }
  })

  it('leaves the person’s decisions to the person, and the sender’s to the sender', () => {
    for (const event of events) {
      const transition = outboxTransitions[event]
      if (transition.by === 'person') {
        // The person never takes an item out of the sender's hands mid-attempt.
        expect(startsOf(event), event).not.toContain('sending')
      } else {
        expect(
          startsOf(event).every((state) => state === 'queued' || state === 'sending'),
          event,
        ).toBe(true)
      }
    }
  })

  it('offers retry, discard and the decisions where the table allows them', () => {
    expect(canRetry({ state: 'needs_attention', attempts: 1 })).toBe(true)
    expect(canRetry({ state: 'queued', attempts: 2 })).toBe(true)
    expect(canRetry({ state: 'queued', attempts: 0 })).toBe(false)
    expect(canRetry({ state: 'sending', attempts: 1 })).toBe(false)
    expect(canRetry({ state: 'uncertain', attempts: 1 })).toBe(false)
    expect(outboxStates.filter(canDiscard)).toEqual([
      'queued',
      'needs_attention',
      'conflict',
      'uncertain',
    ])
    expect(outboxStates.filter(isUncertain)).toEqual(['uncertain'])
    expect(outboxStates.filter(isConflict)).toEqual(['conflict'])
  })
})
