/**
 * A small XML reader for the documents inside office files: elements, attributes, text and
 * character references. Namespace prefixes are dropped from element and attribute names
 * (`x:row` reads as `row`) except `xmlns` declarations, which are ignored. No DTDs.
 */

export class XmlError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'XmlError'
  }
}

export interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: XmlNode[]
}

export type XmlNode = XmlElement | string

export function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: '#document', attributes: {}, children: [] }
  const stack: XmlElement[] = [root]
  let index = 0
  const top = (): XmlElement => stack[stack.length - 1]!

  while (index < source.length) {
    const open = source.indexOf('<', index)
    const textEnd = open < 0 ? source.length : open
    if (textEnd > index) {
      const text = decodeEntities(source.slice(index, textEnd))
      if (stack.length > 1) top().children.push(text)
      else if (text.trim() !== '') throw new XmlError('text outside the root element')
    }
    if (open < 0) break
    if (source.startsWith('<?', open)) {
      index = endOf(source, '?>', open)
    } else if (source.startsWith('<!--', open)) {
      index = endOf(source, '-->', open)
    } else if (source.startsWith('<![CDATA[', open)) {
      const close = endOf(source, ']]>', open)
      top().children.push(source.slice(open + 9, close - 3))
      index = close
    } else if (source.startsWith('<!', open)) {
      throw new XmlError('document type declarations are not supported')
    } else if (source[open + 1] === '/') {
      const close = endOf(source, '>', open)
      const name = localName(source.slice(open + 2, close - 1).trim())
      const element = stack.pop()
      if (!element || element === root || element.name !== name) {
        throw new XmlError(`closing tag </${name}> does not match <${element?.name ?? ''}>`)
      }
      index = close
    } else {
      const close = tagEnd(source, open)
      const selfClosing = source[close - 2] === '/'
      const inner = source.slice(open + 1, selfClosing ? close - 2 : close - 1)
      const element = parseTag(inner)
      top().children.push(element)
      if (!selfClosing) stack.push(element)
      index = close
    }
  }
  if (stack.length > 1) throw new XmlError(`element <${top().name}> is never closed`)
  const element = root.children.find((child): child is XmlElement => typeof child !== 'string')
  if (!element) throw new XmlError('the document has no root element')
  return element
}

export function childElements(element: XmlElement, name?: string): XmlElement[] {
  return element.children.filter(
    (child): child is XmlElement =>
      typeof child !== 'string' && (name === undefined || child.name === name),
  )
}

export function firstChild(element: XmlElement, name: string): XmlElement | undefined {
  return childElements(element, name)[0]
}

/** All text below the element, in document order. */
export function textContent(element: XmlElement): string {
  return element.children
    .map((child) => (typeof child === 'string' ? child : textContent(child)))
    .join('')
}

function endOf(source: string, terminator: string, from: number): number {
  const at = source.indexOf(terminator, from)
  if (at < 0) throw new XmlError(`unterminated markup at offset ${from}`)
  return at + terminator.length
}

/** The end of a start tag, skipping `>` characters inside quoted attribute values. */
function tagEnd(source: string, from: number): number {
  let quote: string | null = null
  for (let index = from + 1; index < source.length; index += 1) {
    const char = source[index]
    if (quote) {
      if (char === quote) quote = null
    } else if (char === '"' || char === "'") {
      quote = char
    } else if (char === '>') {
      return index + 1
    }
  }
  throw new XmlError(`unterminated tag at offset ${from}`)
}

function parseTag(inner: string): XmlElement {
  const nameMatch = /^\s*([^\s/>]+)/.exec(inner)
  if (!nameMatch) throw new XmlError(`a tag has no name: <${inner}>`)
  const attributes: Record<string, string> = {}
  const pattern = /([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/g
  for (const match of inner.slice(nameMatch[0].length).matchAll(pattern)) {
    const name = match[1]!
    if (name === 'xmlns' || name.startsWith('xmlns:')) continue
    attributes[localName(name)] = decodeEntities(match[3] ?? match[4] ?? '')
  }
  return { name: localName(nameMatch[1]!), attributes, children: [] }
}

function localName(name: string): string {
  const colon = name.indexOf(':')
  return colon < 0 ? name : name.slice(colon + 1)
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16))
    if (body.startsWith('#')) return String.fromCodePoint(parseInt(body.slice(1), 10))
    const named = NAMED_ENTITIES[body]
    if (named === undefined) throw new XmlError(`unknown entity ${whole}`)
    return named
  })
}
