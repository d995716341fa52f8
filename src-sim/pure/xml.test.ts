import { describe, expect, it } from 'vitest'
import { childElements, firstChild, parseXml, textContent, XmlError } from './xml.ts'

describe('parseXml', () => {
  it('reads elements, attributes, text and entities, dropping namespace prefixes', () => {
    const root = parseXml(
      '<?xml version="1.0"?>\n<!-- c --><x:root xmlns:x="urn:x" a="1 &amp; 2" r:id=\'rId3\'>' +
        '<x:item>caf&#233; &lt;b&gt; &#x41;</x:item><empty/><![CDATA[<raw>]]></x:root>',
    )
    expect(root.name).toBe('root')
    expect(root.attributes).toEqual({ a: '1 & 2', id: 'rId3' })
    expect(textContent(firstChild(root, 'item')!)).toBe('café <b> A')
    expect(childElements(root).map((element) => element.name)).toEqual(['item', 'empty'])
    expect(textContent(root)).toBe('café <b> A<raw>')
  })

  it('keeps a > inside a quoted attribute value', () => {
    expect(parseXml('<f code="[>=100]0"/>').attributes['code']).toBe('[>=100]0')
  })

  it('reports mismatched and unclosed tags', () => {
    expect(() => parseXml('<a><b></a>')).toThrow(
      new XmlError('closing tag </a> does not match <b>'),
    )
    expect(() => parseXml('<a><b>')).toThrow('element <b> is never closed')
    expect(() => parseXml('<a')).toThrow(/unterminated tag/)
  })

  it('refuses document type declarations and unknown entities', () => {
    expect(() => parseXml('<!DOCTYPE x [<!ENTITY e "boom">]><x/>')).toThrow(/not supported/)
    expect(() => parseXml('<x>&nbsp;</x>')).toThrow('unknown entity &nbsp;')
  })
})
