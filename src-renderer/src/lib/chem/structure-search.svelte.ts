import type { PropertyName, VaultDeskBridge } from '../bridge.ts'
import type { RecordList } from '../state/record-list.svelte.ts'
import { svgDataUrl } from './depiction-url.ts'
import {
  criterionOf,
  defaultDraft,
  isInchiKey,
  kindProblem,
  previewLanguage,
  rangesOf,
  type CheckedRanges,
  type QueryCheck,
  type QueryLanguage,
  type RangeDraft,
  type SearchKind,
  type SimilarityCutoff,
  type StructureDraft,
} from './structure-query.ts'

/** What the query box draws beside the field. */
export type QueryPreview =
  | { status: 'empty' }
  | { status: 'drawn'; url: string; language: 'smiles' | 'smarts' | 'molfile' }
  | { status: 'inchikey' }
  /** The text is not a structure: RDKit's words for what is wrong. */
  | { status: 'invalid'; message: string }
  /** Main could not be asked. */
  | { status: 'failed'; message: string }

export interface StructureSearchOptions {
  /** Typing settles for this long before the text is checked (ms). */
  delay?: number
  /** Runs `work` after `delay` ms; answers a function that cancels it. */
  schedule?: (work: () => void, delay: number) => () => void
}

const timeout = (work: () => void, delay: number) => {
  const timer = setTimeout(work, delay)
  return () => clearTimeout(timer)
}

/**
 * The structure query box of a molecule list: what is typed (checked and drawn by
 * `chem.depictQuery` once typing settles), the kind of search, the similarity cut-off and the
 * property ranges. Whenever they make a valid question, the list is asked it. While the text is
 * not a valid structure, the list keeps the last valid question and the box says what is wrong.
 */
export class StructureSearch {
  readonly list: RecordList
  draft = $state<StructureDraft>({ ...defaultDraft })
  ranges = $state<RangeDraft>({})
  preview = $state.raw<QueryPreview>({ status: 'empty' })
  /** The text is being checked (the drawing shown is of what was typed before). */
  checking = $state(false)
  /** Whether the box is open in the toolbar. */
  expanded = $state(false)
  /** The last check: of which text, read in which language, and what it found. */
  #check = $state.raw<{ text: string; language: QueryLanguage; found: QueryCheck } | null>(null)
  readonly #bridge: VaultDeskBridge
  readonly #delay: number
  readonly #schedule: (work: () => void, delay: number) => () => void
  #cancelCheck: (() => void) | null = null
  #cancelRanges: (() => void) | null = null
  #asked = 0

  constructor(bridge: VaultDeskBridge, list: RecordList, options: StructureSearchOptions = {}) {
    this.#bridge = bridge
    this.list = list
    this.#delay = options.delay ?? 250
    this.#schedule = options.schedule ?? timeout
  }

  /** What stops the typed text from being searched for, or null. */
  get problem(): string | null {
    const check = this.#current()
    return check === null ? null : kindProblem(this.draft, check)
  }

  /** The check of the text as it is typed now, read as the chosen kind reads it; else null. */
  #current(): QueryCheck | null {
    const check = this.#check
    const text = this.draft.text.trim()
    if (check === null || text === '' || check.text !== text) return null
    // An InChIKey is the same whatever the language; a structure must be read the same way.
    if (check.found.kind !== 'inchikey' && check.language !== previewLanguage(this.draft)) {
      return null
    }
    return check.found
  }

  get checkedRanges(): CheckedRanges {
    return rangesOf(this.ranges)
  }

  /** Property ranges typed (valid ones), for the "Properties (n)" button. */
  get rangeCount(): number {
    return Object.keys(this.checkedRanges.ranges).length
  }

  /** The list is narrowed by structure or properties. */
  get active(): boolean {
    return this.list.structure !== null || this.list.properties !== null
  }

  setText(text: string): void {
    if (text === this.draft.text) return
    this.draft.text = text
    this.#cancelCheck?.()
    if (text.trim() === '') {
      this.#asked++
      this.checking = false
      this.#check = null
      this.preview = { status: 'empty' }
      this.#apply()
      return
    }
    this.checking = true
    this.#cancelCheck = this.#schedule(() => void this.#checkText(), this.#delay)
  }

  setKind(kind: SearchKind): void {
    if (kind === this.draft.kind) return
    const before = previewLanguage(this.draft)
    this.draft.kind = kind
    this.#afterReadingChanged(before)
  }

  setLanguage(language: QueryLanguage): void {
    if (language === this.draft.language) return
    const before = previewLanguage(this.draft)
    this.draft.language = language
    this.#afterReadingChanged(before)
  }

  setCutoff(cutoff: SimilarityCutoff): void {
    this.draft.cutoff = cutoff
    this.#apply()
  }

  setThreshold(threshold: number): void {
    if (!Number.isFinite(threshold)) return
    this.draft.threshold = threshold
    this.#apply()
  }

  setTop(top: number): void {
    if (!Number.isFinite(top)) return
    this.draft.top = top
    this.#apply()
  }

  /** One bound of a property range, as typed; the list follows once typing settles. */
  setBound(name: PropertyName, bound: 'min' | 'max', text: string): void {
    const current = this.ranges[name] ?? { min: '', max: '' }
    this.ranges[name] = { ...current, [bound]: text }
    this.#cancelRanges?.()
    this.#cancelRanges = this.#schedule(() => this.#apply(), this.#delay)
  }

  clearRanges(): void {
    this.#cancelRanges?.()
    this.ranges = {}
    this.#apply()
  }

  /** Empties the query and the ranges: the list shows every molecule again. */
  clear(): void {
    this.clearRanges()
    this.setText('')
  }

  /** The text is read in another language now (exact and similarity read SMILES): check again. */
  #afterReadingChanged(before: QueryLanguage): void {
    if (this.draft.text.trim() === '' || previewLanguage(this.draft) === before) {
      this.#apply()
      return
    }
    this.#cancelCheck?.()
    this.checking = true
    void this.#checkText()
  }

  async #checkText(): Promise<void> {
    const asked = ++this.#asked
    const text = this.draft.text.trim()
    const language = previewLanguage(this.draft)
    if (isInchiKey(text)) {
      this.#settle({ text, language, found: { kind: 'inchikey' } }, { status: 'inchikey' })
      return
    }
    const result = await this.#bridge.invoke('chem.depictQuery', { text, language })
    if (asked !== this.#asked) return
    if (!result.ok) {
      this.checking = false
      this.preview = { status: 'failed', message: result.error.message }
      return
    }
    const drawn = result.value
    if (drawn.kind === 'invalid') {
      this.#settle(
        { text, language, found: { kind: 'invalid', message: drawn.message } },
        { status: 'invalid', message: drawn.message },
      )
    } else {
      this.#settle(
        { text, language, found: { kind: 'drawn', language: drawn.language } },
        { status: 'drawn', url: svgDataUrl(drawn.svg), language: drawn.language },
      )
    }
  }

  #settle(
    check: { text: string; language: QueryLanguage; found: QueryCheck },
    preview: QueryPreview,
  ): void {
    this.checking = false
    this.#check = check
    this.preview = preview
    this.#apply()
  }

  /** Asks the list the question the box makes now, keeping the last valid structure if need be. */
  #apply(): void {
    const typed = this.draft.text.trim() !== ''
    const criterion = typed ? criterionOf(this.draft, this.#current()) : null
    const structure = !typed ? null : (criterion ?? this.list.structure)
    this.list.setStructure(structure, this.checkedRanges.ranges)
  }
}
