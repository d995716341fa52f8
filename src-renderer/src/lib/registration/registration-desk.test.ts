import { describe, expect, it } from 'vitest'
import type { QueryDepiction, Result } from '../bridge.ts'
import type {
  RegistrationForm,
  RegistrationRequest,
  RegistrationResult,
} from '../../../../src-common/registration/form.ts'
import type { NoveltyReport } from '../../../../src-common/registration/novelty.ts'
import { BridgeDouble, deferred, settle } from '../testing/bridge-double.ts'
import { svgOf } from '../testing/quiet-bridge.ts'
import { RegistrationDesk } from './registration-desk.svelte.ts'

const form: RegistrationForm = {
  vaultKind: 'plain',
  registrationSystem: null,
  projects: [{ id: 3, name: 'Kinase Inhibitors' }],
  moleculeFields: [],
  batchFields: [],
  salts: [],
  solvents: [],
}

const counts = { 'same-structure': 0, 'other-stereo': 0, 'same-parent': 0 }

function reportOf(smiles: string, matches: { id: number; name: string }[]): NoveltyReport {
  return {
    ok: true,
    input: {
      canonicalSmiles: smiles,
      inchiKey: `KEY-${smiles}`,
      skeletonKey: `SKELETON-${smiles}`,
      parentSmiles: smiles,
      removedFragments: [],
      formula: 'C2H6O',
    },
    matches: matches.map((match) => ({
      relation: 'same-parent' as const,
      pendingItem: null,
      smiles: 'CCO',
      ...match,
    })),
    counts: { ...counts, 'same-parent': matches.length },
    unchecked: 0,
  }
}

function desk() {
  const timers: { work: () => void; cancelled: boolean }[] = []
  const noveltyAnswers: Promise<Result<NoveltyReport>>[] = []
  const queued: RegistrationRequest[] = []
  const bridge = new BridgeDouble()
    .answer('registration.form', async () => ({ ok: true, value: form }))
    .answer('chem.depictQuery', async (): Promise<Result<QueryDepiction>> => {
      const { text } = bridge.calls.at(-1)!.args as { text: string }
      return text.includes('(')
        ? { ok: true, value: { kind: 'invalid', message: `SMILES Parse Error: '${text}'` } }
        : { ok: true, value: { kind: 'svg', svg: svgOf(text), language: 'smiles' } }
    })
    .answer('chem.novelty', () => noveltyAnswers.shift()!)
    .answer('registration.queue', async (): Promise<Result<RegistrationResult>> => {
      queued.push(bridge.calls.at(-1)!.args as RegistrationRequest)
      return { ok: true, value: { ok: true, items: [41] } }
    })
  const registration = new RegistrationDesk(
    bridge,
    { connectionId: 'c1', vaultId: 7 },
    {
      schedule: (work) => {
        const timer = { work, cancelled: false }
        timers.push(timer)
        return () => (timer.cancelled = true)
      },
    },
  )
  const settleTyping = async () => {
    for (const timer of timers.splice(0)) if (!timer.cancelled) timer.work()
    await settle()
  }
  return { bridge, registration, noveltyAnswers, queued, settleTyping }
}

describe('RegistrationDesk', () => {
  it('checks the structure once typing settles and drops an answer about older text', async () => {
    const { bridge, registration, noveltyAnswers, settleTyping } = desk()
    await registration.load()
    expect(registration.draft.projects).toEqual([3])

    const slow = deferred<Result<NoveltyReport>>()
    noveltyAnswers.push(slow.promise)
    registration.setStructure('CCO')
    registration.setStructure('CCO.Cl')
    // Only the last text is asked, once typing settles.
    await settleTyping()
    expect(bridge.calls.filter((call) => call.channel === 'chem.novelty')).toHaveLength(1)
    expect(registration.checking).toBe(true)

    // The person types on while the check is out: its answer is about text no longer there.
    noveltyAnswers.push(Promise.resolve({ ok: true, value: reportOf('CCN', []) }))
    registration.setStructure('CCN')
    slow.resolve({ ok: true, value: reportOf('CCO.Cl', [{ id: 12, name: 'VD-0012' }]) })
    await settle()
    expect(registration.novelty.status).toBe('checking')
    await settleTyping()
    expect(registration.novelty).toMatchObject({ status: 'ready', report: { matches: [] } })
    expect(registration.preview.status).toBe('drawn')
  })

  it('asks for an answer when matches exist, and forgets it when the structure changes', async () => {
    const { registration, noveltyAnswers, queued, settleTyping } = desk()
    await registration.load()
    registration.draft.name = 'Ethanol hydrochloride'
    noveltyAnswers.push(
      Promise.resolve({ ok: true, value: reportOf('CCO.Cl', [{ id: 12, name: 'VD-0012' }]) }),
    )
    registration.setStructure('CCO.Cl')
    await settleTyping()
    expect(registration.matches.map((match) => match.id)).toEqual([12])
    // The match is drawn for the panel.
    expect(registration.drawings.get('CCO')?.status).toBe('drawn')

    expect(await registration.queue()).toBeNull()
    expect(registration.problems.map((problem) => problem.member)).toEqual(['duplicate'])

    registration.choose({ kind: 'existing', moleculeId: 12 })
    expect(registration.problems).toEqual([])
    noveltyAnswers.push(Promise.resolve({ ok: true, value: reportOf('CCO.Br', []) }))
    registration.setStructure('CCO.Br')
    await settleTyping()
    expect(registration.draft.duplicate).toBeNull()

    expect(await registration.queue()).toEqual([41])
    expect(queued[0]).toMatchObject({
      structure: { format: 'smiles', text: 'CCO.Br' },
      duplicate: { kind: 'none' },
      projects: [3],
    })
  })

  it('queues nothing for text that is not a structure, and says why', async () => {
    const { bridge, registration, noveltyAnswers, settleTyping } = desk()
    await registration.load()
    registration.draft.name = 'Broken'
    noveltyAnswers.push(
      Promise.resolve({ ok: true, value: { ok: false, error: "SMILES Parse Error: 'C1CC('" } }),
    )
    registration.setStructure('C1CC(')
    expect(await registration.queue()).toBeNull()
    expect(registration.problems[0]).toMatchObject({ member: 'structure', message: /still being/ })
    await settleTyping()
    expect(registration.structureProblem).toMatch(/Parse Error/)
    expect(await registration.queue()).toBeNull()
    expect(registration.problems).toEqual([
      { member: 'structure', message: "SMILES Parse Error: 'C1CC('" },
    ])
    expect(bridge.calls.some((call) => call.channel === 'registration.queue')).toBe(false)
  })

  it('asks again while some cached molecules could not be compared yet', async () => {
    const { bridge, registration, noveltyAnswers, settleTyping } = desk()
    await registration.load()
    const partial = reportOf('CCO.Cl', [])
    noveltyAnswers.push(Promise.resolve({ ok: true, value: { ...partial, unchecked: 120 } }))
    registration.setStructure('CCO.Cl')
    await settleTyping()
    expect(registration.novelty).toMatchObject({ status: 'ready', report: { unchecked: 120 } })

    noveltyAnswers.push(
      Promise.resolve({ ok: true, value: reportOf('CCO.Cl', [{ id: 12, name: 'VD-0012' }]) }),
    )
    await settleTyping()
    expect(registration.novelty).toMatchObject({ status: 'ready', report: { unchecked: 0 } })
    expect(registration.matches.map((match) => match.id)).toEqual([12])
    // Complete now: nothing more is asked.
    await settleTyping()
    expect(bridge.calls.filter((call) => call.channel === 'chem.novelty')).toHaveLength(2)
  })

  it('shows the problems main finds beside their members', async () => {
    const { bridge, registration, noveltyAnswers, settleTyping } = desk()
    bridge.answer('registration.queue', async () => ({
      ok: true,
      value: { ok: false, problems: [{ member: 'name', message: 'The name is taken.' }] },
    }))
    await registration.load()
    registration.draft.name = 'Aspirin'
    noveltyAnswers.push(Promise.resolve({ ok: true, value: reportOf('CCO', []) }))
    registration.setStructure('CCO')
    await settleTyping()
    expect(await registration.queue()).toBeNull()
    expect(registration.problems).toEqual([{ member: 'name', message: 'The name is taken.' }])
    registration.forget('name')
    expect(registration.problems).toEqual([])
  })
})
