import type { VaultDeskBridge } from '../bridge.ts'
import { svgDataUrl } from '../chem/depiction-url.ts'
import type {
  RegistrationForm,
  RegistrationProblem,
  RegistrationRequest,
  StructureText,
} from '../../../../src-common/registration/form.ts'
import type { NoveltyMatch, NoveltyReport } from '../../../../src-common/registration/novelty.ts'
import {
  emptyDraft,
  readRequest,
  readStructure,
  type RegistrationDraft,
} from './registration-request.ts'

export type FormState =
  | { status: 'loading' }
  | { status: 'ready'; form: RegistrationForm }
  | { status: 'failed'; message: string }

/** The drawing of what is typed. */
export type StructurePreview =
  | { status: 'empty' }
  | { status: 'drawn'; url: string; format: StructureText['format'] }
  /** The text is not a structure: what is wrong, in words. */
  | { status: 'invalid'; message: string }
  /** Main could not be asked. */
  | { status: 'failed'; message: string }

/** The novelty check of the structure as typed now. */
export type NoveltyState =
  | { status: 'empty' }
  | { status: 'checking' }
  | { status: 'ready'; report: Extract<NoveltyReport, { ok: true }> }
  | { status: 'invalid'; message: string }
  /** The check could not run: the vault still refuses a duplicate it knows when the item is sent. */
  | { status: 'failed'; message: string }

/** A match's drawing, by its SMILES. */
export type MatchDrawing = { status: 'drawn'; url: string } | { status: 'none'; message: string }

export interface RegistrationDeskOptions {
  /** Typing settles for this long before the structure is drawn and checked (ms). */
  delay?: number
  /** How long before a structure is checked again while some molecules could not be (ms). */
  recheckDelay?: number
  /** Runs `work` after `delay` ms; answers a function that cancels it. */
  schedule?: (work: () => void, delay: number) => () => void
}

const timeout = (work: () => void, delay: number) => {
  const timer = setTimeout(work, delay)
  return () => clearTimeout(timer)
}

/**
 * One registration being written in the window: the vault's form (fields, projects, whether it
 * numbers molecules itself), what the person typed, the drawing and novelty check of the
 * structure (asked once typing settles; an answer about text typed before is dropped), the
 * person's answer to the check, and the problems of the last attempt to queue, by member.
 */
export class RegistrationDesk {
  readonly connectionId: string
  readonly vaultId: number
  form = $state.raw<FormState>({ status: 'loading' })
  draft = $state<RegistrationDraft>(emptyDraft())
  preview = $state.raw<StructurePreview>({ status: 'empty' })
  novelty = $state.raw<NoveltyState>({ status: 'empty' })
  /** Drawings of the matches, by SMILES (replaced whole). */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  drawings = $state.raw<ReadonlyMap<string, MatchDrawing>>(new Map())
  problems = $state.raw<RegistrationProblem[]>([])
  busy = $state(false)
  readonly #bridge: VaultDeskBridge
  readonly #delay: number
  readonly #recheckDelay: number
  readonly #schedule: (work: () => void, delay: number) => () => void
  #cancelCheck: (() => void) | null = null
  #asked = 0
  /** The InChIKey the person's answer to the check was given for. */
  #answeredFor: string | null = null

  constructor(
    bridge: VaultDeskBridge,
    target: { connectionId: string; vaultId: number },
    options: RegistrationDeskOptions = {},
  ) {
    this.#bridge = bridge
    this.connectionId = target.connectionId
    this.vaultId = target.vaultId
    this.#delay = options.delay ?? 300
    this.#recheckDelay = options.recheckDelay ?? 3000
    this.#schedule = options.schedule ?? timeout
  }

  async load(): Promise<void> {
    this.form = { status: 'loading' }
    const result = await this.#bridge.invoke('registration.form', {
      connectionId: this.connectionId,
      vaultId: this.vaultId,
    })
    if (!result.ok) {
      this.form = { status: 'failed', message: result.error.message }
      return
    }
    const form = result.value
    this.form = { status: 'ready', form }
    // One project open to the person is the only answer; more are the person's choice.
    if (this.draft.projects.length === 0 && form.projects.length === 1) {
      this.draft.projects = [form.projects[0]!.id]
    }
  }

  /** The matches listed, when the check of the text as typed now found any. */
  get matches(): NoveltyMatch[] {
    return this.novelty.status === 'ready' ? this.novelty.report.matches : []
  }

  /** What stops the structure from being registered, once checked; else null. */
  get structureProblem(): string | null {
    if (this.preview.status === 'invalid') return this.preview.message
    if (this.novelty.status === 'invalid') return this.novelty.message
    return null
  }

  /** The drawing is being made or the check asked for text typed since. */
  get checking(): boolean {
    return this.novelty.status === 'checking'
  }

  setStructure(text: string): void {
    if (text === this.draft.structure) return
    this.draft.structure = text
    this.forget('structure')
    this.#cancelCheck?.()
    this.#asked++
    const reading = readStructure(text)
    if (!reading.ok) {
      this.#cancelCheck = null
      const empty = text.trim() === ''
      this.preview = empty ? { status: 'empty' } : { status: 'invalid', message: reading.message }
      this.novelty = empty ? { status: 'empty' } : { status: 'invalid', message: reading.message }
      this.#answer(null, null)
      return
    }
    this.novelty = { status: 'checking' }
    this.#cancelCheck = this.#schedule(() => void this.#check(reading.structure), this.#delay)
  }

  /** The person's answer to the novelty check. */
  choose(duplicate: RegistrationRequest['duplicate']): void {
    const key = this.novelty.status === 'ready' ? this.novelty.report.input.inchiKey : null
    this.#answer(duplicate, key)
    this.forget('duplicate')
  }

  /** A member was edited: its problem from the last attempt no longer stands. */
  forget(member: string): void {
    if (this.problems.some((problem) => problem.member === member)) {
      this.problems = this.problems.filter((problem) => problem.member !== member)
    }
  }

  /**
   * Queues the registration, or keeps the problems found (here, or by main) for the dialog to
   * show beside their fields. Answers the outbox items made, or null.
   */
  async queue(): Promise<number[] | null> {
    if (this.form.status !== 'ready' || this.busy) return null
    if (this.checking) {
      this.problems = [
        { member: 'structure', message: 'The structure is still being checked: a moment.' },
      ]
      return null
    }
    const reading = readRequest(
      { connectionId: this.connectionId, vaultId: this.vaultId },
      this.form.form,
      this.draft,
      this.matches.length > 0,
    )
    const structureProblem = this.structureProblem
    const problems = reading.ok ? [] : reading.problems
    if (structureProblem && !problems.some((problem) => problem.member === 'structure')) {
      problems.unshift({ member: 'structure', message: structureProblem })
    }
    if (!reading.ok || problems.length > 0) {
      this.problems = problems
      return null
    }
    this.busy = true
    const result = await this.#bridge.invoke('registration.queue', reading.request)
    this.busy = false
    if (!result.ok) {
      this.problems = [{ member: 'queue', message: result.error.message }]
      return null
    }
    if (!result.value.ok) {
      this.problems = result.value.problems
      return null
    }
    this.problems = []
    return result.value.items
  }

  /** Starts again empty, keeping the projects chosen (the next compound often goes there too). */
  reset(): void {
    const projects = this.draft.projects
    this.#cancelCheck?.()
    this.#asked++
    this.draft = { ...emptyDraft(), projects }
    this.preview = { status: 'empty' }
    this.novelty = { status: 'empty' }
    this.problems = []
    this.#answeredFor = null
  }

  /** Checks the structure typed again (the dialog opens again: the cache may have changed). */
  recheck(): void {
    const reading = readStructure(this.draft.structure)
    if (!reading.ok) return
    this.#cancelCheck?.()
    void this.#check(reading.structure)
  }

  /** Stops a check waiting to run (the dialog closed). */
  stop(): void {
    this.#cancelCheck?.()
    this.#asked++
  }

  #answer(duplicate: RegistrationRequest['duplicate'] | null, key: string | null): void {
    this.draft.duplicate = duplicate
    this.#answeredFor = key
  }

  async #check(structure: StructureText): Promise<void> {
    const asked = ++this.#asked
    const language = structure.format === 'molfile' ? 'molfile' : 'smiles'
    const [drawn, report] = await Promise.all([
      this.#bridge.invoke('chem.depictQuery', { text: structure.text, language }),
      this.#bridge.invoke('chem.novelty', {
        connectionId: this.connectionId,
        vaultId: this.vaultId,
        structure,
      }),
    ])
    if (asked !== this.#asked) return
    if (!drawn.ok) this.preview = { status: 'failed', message: drawn.error.message }
    else if (drawn.value.kind === 'invalid') {
      this.preview = { status: 'invalid', message: drawn.value.message }
    } else {
      this.preview = { status: 'drawn', url: svgDataUrl(drawn.value.svg), format: structure.format }
    }
    if (!report.ok) {
      this.novelty = { status: 'failed', message: report.error.message }
      this.#answer(null, null)
      return
    }
    if (!report.value.ok) {
      this.novelty = { status: 'invalid', message: report.value.error }
      this.#answer(null, null)
      return
    }
    const found = report.value
    this.novelty = { status: 'ready', report: found }
    // An answer given for another structure does not carry over; one for this one stays.
    if (this.#answeredFor !== found.input.inchiKey) this.#answer(null, null)
    void this.#drawMatches(found.matches)
    // Molecules whose keys are still being computed were not compared: ask again until none are.
    if (found.unchecked > 0) {
      this.#cancelCheck = this.#schedule(() => void this.#check(structure), this.#recheckDelay)
    }
  }

  async #drawMatches(matches: readonly NoveltyMatch[]): Promise<void> {
    const missing = matches
      .flatMap((match) => (match.smiles ? [match.smiles] : []))
      .filter((smiles, index, all) => all.indexOf(smiles) === index && !this.drawings.has(smiles))
    await Promise.all(
      missing.map(async (smiles) => {
        const drawn = await this.#bridge.invoke('chem.depictQuery', {
          text: smiles,
          language: 'smiles',
        })
        const drawing: MatchDrawing = !drawn.ok
          ? { status: 'none', message: drawn.error.message }
          : drawn.value.kind === 'invalid'
            ? { status: 'none', message: drawn.value.message }
            : { status: 'drawn', url: svgDataUrl(drawn.value.svg) }
        // eslint-disable-next-line svelte/prefer-svelte-reactivity
        this.drawings = new Map([...this.drawings, [smiles, drawing]])
      }),
    )
  }
}
