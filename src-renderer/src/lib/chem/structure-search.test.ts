import { describe, expect, it } from 'vitest'
import type { CachedRecordPage, QueryDepiction, RequestArgs, Result } from '../bridge.ts'
import { RecordList } from '../state/record-list.svelte.ts'
import { deferred, settle } from '../testing/bridge-double.ts'
import { quietBridge, svgOf } from '../testing/quiet-bridge.ts'
import { StructureSearch } from './structure-search.svelte.ts'

type QueryArgs = RequestArgs<'chem.depictQuery'>
type ListArgs = RequestArgs<'records.list'>

/** RDKit's verdicts on what is typed, as main would give them. */
function depictQuery(args: QueryArgs): QueryDepiction {
  const text = args.text
  if (text.includes('~') || text.startsWith('[#')) {
    return args.language === 'smiles'
      ? { kind: 'invalid', message: `SMILES Parse Error: syntax error for input: '${text}'` }
      : { kind: 'svg', svg: svgOf(text), language: 'smarts' }
  }
  if (/^c1c*$|\($/.test(text)) {
    return { kind: 'invalid', message: `SMILES Parse Error: unclosed ring for input: '${text}'` }
  }
  return { kind: 'svg', svg: svgOf(text), language: 'smiles' }
}

function searchBox() {
  const timers: { work: () => void; cancelled: boolean }[] = []
  const listAsked: ListArgs[] = []
  const checked: QueryArgs[] = []
  const bridge = quietBridge()
    .answer('chem.depictQuery', async () => {
      const args = bridge.calls.at(-1)!.args as QueryArgs
      checked.push(args)
      return { ok: true, value: depictQuery(args) }
    })
    .answer('records.list', async (): Promise<Result<CachedRecordPage>> => {
      listAsked.push(bridge.calls.at(-1)!.args as ListArgs)
      return { ok: true, value: { kind: 'molecules', total: 0, rows: [] } }
    })
  const list = new RecordList(bridge, () => {}, {
    connectionId: 'c1',
    vaultId: 1,
    kind: 'molecules',
    projectFilter: 'projects',
  })
  const search = new StructureSearch(bridge, list, {
    schedule: (work) => {
      const timer = { work, cancelled: false }
      timers.push(timer)
      return () => (timer.cancelled = true)
    },
  })
  /** Typing settles: the pending checks run. */
  const settleTyping = async () => {
    for (const timer of timers.splice(0)) if (!timer.cancelled) timer.work()
    await settle()
  }
  return { bridge, list, search, listAsked, checked, settleTyping }
}

describe('StructureSearch', () => {
  it('checks and draws what is typed once typing settles, then searches for it', async () => {
    const { list, search, checked, settleTyping } = searchBox()
    search.setText('c')
    search.setText('c1ccccc1')
    expect(search.checking).toBe(true)
    expect(list.structure).toBeNull()
    await settleTyping()
    expect(checked).toEqual([{ text: 'c1ccccc1', language: 'auto' }])
    expect(search.checking).toBe(false)
    expect(search.preview).toMatchObject({ status: 'drawn', language: 'smiles' })
    expect(search.preview.status === 'drawn' && search.preview.url).toMatch(/^data:image\/svg/)
    expect(list.structure).toEqual({ kind: 'substructure', query: 'c1ccccc1' })
    expect(search.active).toBe(true)
  })

  it('names the problem of an invalid query and keeps the last valid search meanwhile', async () => {
    const { list, search, settleTyping } = searchBox()
    search.setText('CCO')
    await settleTyping()
    search.setText('c1cc')
    await settleTyping()
    expect(search.preview).toEqual({
      status: 'invalid',
      message: "SMILES Parse Error: unclosed ring for input: 'c1cc'",
    })
    expect(search.problem).toBe("SMILES Parse Error: unclosed ring for input: 'c1cc'")
    expect(list.structure).toEqual({ kind: 'substructure', query: 'CCO' })
    // A valid change of kind meanwhile does not send the invalid text.
    search.setKind('exact')
    await settle()
    expect(list.structure).toEqual({ kind: 'substructure', query: 'CCO' })
    search.setText('')
    expect(search.preview).toEqual({ status: 'empty' })
    expect(search.problem).toBeNull()
    expect(list.structure).toBeNull()
  })

  it('reads the text again when the kind reads it differently, and says why SMARTS cannot be similar', async () => {
    const { list, search, checked, settleTyping } = searchBox()
    search.setText('[#6]~[#7]')
    await settleTyping()
    expect(list.structure).toEqual({ kind: 'substructure', query: '[#6]~[#7]' })
    search.setKind('similarity')
    await settle()
    expect(checked.at(-1)).toEqual({ text: '[#6]~[#7]', language: 'smiles' })
    expect(search.problem).toMatch(/^SMILES Parse Error/)

    search.setText('CCO')
    await settleTyping()
    expect(list.structure).toEqual({ kind: 'similarity', smiles: 'CCO', threshold: 0.7 })
    search.setCutoff('top')
    search.setTop(25)
    expect(list.structure).toEqual({ kind: 'similarity', smiles: 'CCO', top: 25 })
    // Exact reads SMILES too: nothing to check again.
    const checks = checked.length
    search.setKind('exact')
    expect(checked).toHaveLength(checks)
    expect(list.structure).toEqual({ kind: 'exact', query: 'CCO' })
  })

  it('finds an InChIKey exactly without drawing it', async () => {
    const { list, search, checked, settleTyping } = searchBox()
    search.setKind('exact')
    search.setText('LFQSCWFLJHTTHZ-UHFFFAOYSA-N')
    await settleTyping()
    expect(checked).toEqual([])
    expect(search.preview).toEqual({ status: 'inchikey' })
    expect(list.structure).toEqual({ kind: 'exact', query: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' })
    search.setKind('substructure')
    expect(search.problem).toMatch(/choose Exact/)
  })

  it('drops answers to text typed before', async () => {
    const { bridge, list, search, settleTyping } = searchBox()
    const slow = deferred<{ ok: true; value: QueryDepiction }>()
    bridge.answer('chem.depictQuery', () => slow.promise)
    search.setText('CC')
    await settleTyping()
    bridge.answer('chem.depictQuery', async () => ({
      ok: true,
      value: { kind: 'svg', svg: svgOf('CCN'), language: 'smiles' },
    }))
    search.setText('CCN')
    await settleTyping()
    slow.resolve({ ok: true, value: { kind: 'svg', svg: svgOf('CC'), language: 'smiles' } })
    await settle()
    expect(list.structure).toEqual({ kind: 'substructure', query: 'CCN' })
  })

  it('narrows by property ranges, with or without a structure', async () => {
    const { list, search, listAsked, settleTyping } = searchBox()
    list.want({ start: 0, end: 10 })
    search.setBound('molecularWeight', 'max', '500')
    search.setBound('logP', 'min', 'x')
    await settleTyping()
    expect(list.properties).toEqual({ molecularWeight: { max: 500 } })
    expect(search.rangeCount).toBe(1)
    expect(search.checkedRanges.problems).toEqual({ logP: 'cLogP: type a number.' })
    expect(listAsked.at(-1)).toMatchObject({ properties: { molecularWeight: { max: 500 } } })
    expect(listAsked.at(-1)!.structure).toBeUndefined()

    search.setText('CCO')
    await settleTyping()
    expect(listAsked.at(-1)).toMatchObject({
      structure: { kind: 'substructure', query: 'CCO' },
      properties: { molecularWeight: { max: 500 } },
    })
    search.clear()
    expect(list.structure).toBeNull()
    expect(list.properties).toBeNull()
    expect(search.active).toBe(false)
  })

  it('says so when main cannot check the text', async () => {
    const { bridge, search, settleTyping } = searchBox()
    bridge.answer('chem.depictQuery', async () => ({
      ok: false,
      error: { code: 'internal', message: 'The chemistry workers stopped' },
    }))
    search.setText('CCO')
    await settleTyping()
    expect(search.preview).toEqual({ status: 'failed', message: 'The chemistry workers stopped' })
    expect(search.checking).toBe(false)
  })
})
