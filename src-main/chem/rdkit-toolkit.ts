/**
 * RDKit (WebAssembly) as the workers use it: loaded once per worker, with its log captured so that
 * a structure it cannot read comes back with RDKit's own words for what is wrong.
 */
import initRDKitModule from '@rdkit/rdkit'
import type { Log, MainModule, Mol } from '@rdkit/rdkit'
import {
  isMolfile,
  looksLikeSmarts,
  type QueryLanguage,
  type ResolvedQueryLanguage,
} from './structure-query.ts'

export type { Mol }

/** `problem` is the whole message for the user; `reason` is RDKit's part of it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; reason: string }

export interface ParsedQuery {
  mol: Mol
  language: ResolvedQueryLanguage
}

const languageNames: Record<ResolvedQueryLanguage, string> = {
  smiles: 'SMILES',
  smarts: 'SMARTS',
  molfile: 'molfile',
}

export class RDKitToolkit {
  readonly module: MainModule
  readonly #log: Log

  private constructor(module: MainModule) {
    this.module = module
    const log = module.set_log_capture('rdApp.*')
    if (!log) throw new Error('RDKit refused to capture its log.')
    this.#log = log
  }

  static async load(): Promise<RDKitToolkit> {
    // The package is CommonJS: Node hands over module.exports, whose `default` is the factory.
    // Its typings say otherwise under some module settings (the window's type check reads this
    // file through type imports), hence the cast.
    const loaded = initRDKitModule as unknown as { default: () => Promise<MainModule> }
    return new RDKitToolkit(await loaded.default())
  }

  get version(): string {
    return this.module.version()
  }

  /** A molecule from SMILES, CXSMILES or a molfile, sanitized as RDKit always does. */
  parseMolecule(text: string): Parsed<Mol> {
    return this.#parse(text, isMolfile(text) ? 'molfile' : 'smiles', () =>
      this.module.get_mol(text),
    )
  }

  /**
   * Whether matching must look at stereo: only when the query specifies some. RDKit reads its
   * match options from JSON on every call, which costs as much as the match of a small query, so
   * queries without stereo are matched without options (the same answer, faster). A SMARTS ring
   * bond ("@") may be taken for stereo; that only costs the options.
   */
  specifiesStereo(query: ParsedQuery): boolean {
    const text = query.language === 'smarts' ? query.mol.get_smarts() : query.mol.get_smiles()
    return /[@/\\]/.test(text)
  }

  parseMoleculeFromPickle(pickle: Uint8Array): Mol | null {
    return this.module.get_mol_from_uint8array(pickle)
  }

  parseQuery(text: string, language: QueryLanguage): Parsed<ParsedQuery> {
    if (language === 'auto') {
      if (isMolfile(text)) return this.parseQuery(text, 'molfile')
      if (looksLikeSmarts(text)) return this.parseQuery(text, 'smarts')
      const asSmiles = this.parseQuery(text, 'smiles')
      if (asSmiles.ok) return asSmiles
      const asSmarts = this.parseQuery(text, 'smarts')
      if (asSmarts.ok) return asSmarts
      return { ...asSmiles, problem: `Invalid SMILES or SMARTS: ${asSmiles.reason}` }
    }
    const parsed = this.#parse(text, language, () =>
      language === 'smarts' ? this.module.get_qmol(text) : this.module.get_mol(text),
    )
    return parsed.ok ? { ok: true, value: { mol: parsed.value, language } } : parsed
  }

  #parse(text: string, language: ResolvedQueryLanguage, parse: () => Mol | null): Parsed<Mol> {
    const name = languageNames[language]
    const failure = (reason: string): Parsed<never> => ({
      ok: false,
      problem: `Invalid ${name}: ${reason}`,
      reason,
    })
    if (text.trim() === '') return failure('it is empty.')
    this.#log.clear_buffer()
    let mol: Mol | null
    try {
      mol = parse()
    } catch (error) {
      this.#log.clear_buffer()
      return failure(`RDKit failed (${String(error)}).`)
    }
    if (mol && mol.is_valid() && mol.get_num_atoms() > 0) return { ok: true, value: mol }
    const validButEmpty = mol?.is_valid() === true
    mol?.delete()
    return failure(validButEmpty ? 'it has no atoms.' : this.#reasonReported())
  }

  /**
   * RDKit's log lines without timestamps or parser prefixes, once each, leaving out the echo of the
   * input under a caret (the position is kept) and the closing line that repeats the input.
   */
  #reasonReported(): string {
    const lines = this.#log
      .get_buffer()
      .split('\n')
      .map((line) => line.replace(/^\[\d\d:\d\d:\d\d\]\s?/, ''))
    this.#log.clear_buffer()
    const parts = new Set<string>()
    for (let i = 0; i < lines.length; i++) {
      const part = lines[i]!.replace(/^(SMILES|SMARTS) Parse Error:\s*/, '')
        .replace(/:$/, '')
        .trim()
      if (part === '' || /^Failed parsing (SMILES|SMARTS) /.test(part)) continue
      parts.add(part)
      if (/^check for mistakes around position \d+$/.test(part)) i += 2
    }
    return parts.size > 0 ? `${[...parts].join('; ')}.` : 'RDKit could not read it.'
  }
}
