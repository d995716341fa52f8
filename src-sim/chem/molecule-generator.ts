import type { Chemistry } from './chemistry.ts'
import { combineProfiles, deriveProperties } from './properties.ts'
import type { DerivedProperties, StructureProfile } from './properties.ts'
import type { Random } from '../core/random.ts'

/**
 * Drug-like molecules built from medicinal-chemistry scaffolds and substituents. A scaffold's
 * `{1}`, `{2}`, `{3}` are substituent sites on atoms that otherwise carry a hydrogen. Properties
 * are sums of fragment profiles computed once with RDKit (the scaffold with hydrogens at every
 * site, plus each substituent's difference against benzene), so a hundred thousand molecules
 * need no per-molecule RDKit call; element counts and therefore formula and masses are exact.
 */
interface Scaffold {
  series: string
  template: string
}

export const scaffolds: readonly Scaffold[] = [
  { series: 'Aminoquinazolines', template: 'c1c({1})cc2c(c1)ncnc2Nc1ccc({2})c({3})c1' },
  { series: 'Aminoquinazolines', template: 'c1c({1})c({3})cc2c1ncnc2Nc1cccc({2})c1' },
  { series: 'Benzamides', template: 'O=C(Nc1ccc({2})cc1)c1ccc({1})c({3})c1' },
  { series: 'Benzamides', template: 'O=C(NCc1ccc({2})cc1)c1cc({3})cc({1})c1' },
  { series: 'Biaryls', template: 'c1cc({1})ccc1-c1ccc({2})cc1{3}' },
  { series: 'Biaryls', template: 'c1c({1})ccc(-c2ccnc({2})c2)c1{3}' },
  { series: 'Heteroaryl amides', template: 'O=C(Nc1nc(-c2ccc({1})cc2)cs1)c1ccc({2})c({3})c1' },
  { series: 'Heteroaryl amides', template: 'O=C(NCc1ccc({1})cc1)c1cc2cc({2})c({3})cc2[nH]1' },
  { series: 'Sulfonamides', template: 'O=S(=O)(Nc1ccc({1})cc1)c1ccc({2})c({3})c1' },
  { series: 'Sulfonamides', template: 'O=S(=O)(N1CCC(c2ccc({1})cc2)CC1)c1cc({3})ccc1{2}' },
  { series: 'Ureas', template: 'O=C(Nc1ccc({1})cc1)Nc1cc({3})cc({2})c1' },
  { series: 'Ureas', template: 'O=C(NC1CCN(c2ncc({1})cn2)CC1)Nc1ccc({2})c({3})c1' },
  { series: 'Azoles', template: 'Cc1cc(-c2ccc({1})cc2)n(-c2ccc({2})c({3})c2)n1' },
  { series: 'Azoles', template: 'c1cc({1})ccc1-c1nnc(-c2ccc({2})c({3})c2)o1' },
  { series: 'Azoles', template: 'c1c({2})cn2cc(-c3ccc({1})c({3})c3)nc2c1' },
  { series: 'Azoles', template: 'c1c({2})cc2[nH]c(-c3ccc({1})cc3{3})nc2c1' },
  { series: 'Piperazines', template: 'O=C(c1ccc({2})c({3})c1)N1CCN(c2ccc({1})cc2)CC1' },
  { series: 'Piperazines', template: 'c1cc({1})ccc1N1CCN(Cc2ccc({2})c({3})c2)CC1' },
  { series: 'Piperazines', template: 'O=C(c1ccc({1})cc1)N1CCC(Cc2cc({3})ccc2{2})CC1' },
  { series: 'Benzamides', template: 'O=c1cc(-c2ccc({1})cc2)oc2cc({2})c({3})cc12' },
]

/** Substituents as written after their attachment atom; ring closures use %9x to stay clear of scaffolds'. */
export const substituents: readonly string[] = [
  'F',
  'Cl',
  'Br',
  'C',
  'CC',
  'C(C)C',
  'C(C)(C)C',
  'C%91CC%91',
  'OC',
  'OCC',
  'OC(C)C',
  'C(F)(F)F',
  'OC(F)(F)F',
  'C#N',
  'N(C)C',
  'C(N)=O',
  'C(=O)OC',
  'C(=O)O',
  'S(C)(=O)=O',
  'S(N)(=O)=O',
  'N%91CCOCC%91',
  'N%91CCN(C)CC%91',
  'N%91CCCC%91',
  'CN%91CCOCC%91',
  'OCCN(C)C',
  'C(=O)N%91CCOCC%91',
  'NS(C)(=O)=O',
  'NC(C)=O',
  'CO',
  'O',
  'N',
  'c%91ccncc%91',
  'c%91ccco%91',
  'c%91ccccc%91',
  'Oc%91ccccc%91',
  'C(F)F',
  'SC',
]

export interface GeneratedMolecule {
  smiles: string
  series: string
  properties: DerivedProperties
}

interface ScaffoldProfile {
  scaffold: Scaffold
  core: StructureProfile
  sites: number[]
}

export class MoleculeGenerator {
  readonly #scaffolds: ScaffoldProfile[]
  readonly #substituents: StructureProfile[]

  private constructor(
    scaffoldProfiles: ScaffoldProfile[],
    substituentProfiles: StructureProfile[],
  ) {
    this.#scaffolds = scaffoldProfiles
    this.#substituents = substituentProfiles
  }

  /** Profiles every fragment with RDKit (a few dozen molecules). */
  static create(chem: Chemistry): MoleculeGenerator {
    const benzene = chem.profile('c1ccccc1')
    const substituentProfiles = substituents.map((substituent) =>
      combineProfiles(chem.profile(`c1ccc(${substituent})cc1`), benzene, -1),
    )
    const scaffoldProfiles = scaffolds.map((scaffold) => ({
      scaffold,
      core: chem.profile(assemble(scaffold.template, [])),
      sites: [...scaffold.template.matchAll(/\{(\d)\}/g)].map((match) => Number(match[1])),
    }))
    return new MoleculeGenerator(scaffoldProfiles, substituentProfiles)
  }

  /** How many distinct molecules the fragments can make. */
  get capacity(): number {
    return this.#scaffolds.reduce(
      (sum, entry) => sum + (substituents.length + 1) ** entry.sites.length,
      0,
    )
  }

  /** `count` distinct molecules, in a repeatable order for a given generator state. */
  generate(count: number, random: Random): GeneratedMolecule[] {
    if (count > this.capacity / 2)
      throw new Error(
        `Cannot generate ${count} distinct molecules; the fragments allow about ${this.capacity / 2}`,
      )
    const seen = new Set<string>()
    const molecules: GeneratedMolecule[] = []
    while (molecules.length < count) {
      const entry = random.pick(this.#scaffolds)
      // Index 0 means "hydrogen": about a third of the sites stay unsubstituted.
      const choices = entry.sites.map(() =>
        random.chance(0.3) ? 0 : random.integer(1, substituents.length),
      )
      const key = `${entry.scaffold.template}|${choices.join(',')}`
      if (seen.has(key)) continue
      seen.add(key)
      let profile = entry.core
      const chosen: (string | undefined)[] = []
      entry.sites.forEach((site, index) => {
        const choice = choices[index]!
        chosen[site] = choice === 0 ? undefined : substituents[choice - 1]
        if (choice !== 0) profile = combineProfiles(profile, this.#substituents[choice - 1]!)
      })
      molecules.push({
        smiles: assemble(entry.scaffold.template, chosen),
        series: entry.scaffold.series,
        properties: deriveProperties(profile),
      })
    }
    return molecules
  }
}

/** Fills the sites: a substituent becomes a branch, a hydrogen leaves nothing. */
function assemble(template: string, chosen: readonly (string | undefined)[]): string {
  return template
    .replace(/\(\{(\d)\}\)/g, (_, site: string) => {
      const substituent = chosen[Number(site)]
      return substituent === undefined ? '' : `(${substituent})`
    })
    .replace(/\{(\d)\}/g, (_, site: string) => chosen[Number(site)] ?? '')
}
