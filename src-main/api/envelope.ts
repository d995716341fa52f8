import { integer, readLeniently, ShapeError, type Parser } from './shape.ts'

/**
 * One page of a paged list. `count` is the total of matches; a bare array answer has none.
 * Records that could not be read are left out of `objects` (`setAsideIn(page.objects)`).
 */
export interface Page<T> {
  count: number | undefined
  offset: number | undefined
  objects: T[]
  /**
   * The server's JSON text of each object, undefined where the reader changed it; found when
   * asked (for a caller that stores records as they came, instead of serializing them again).
   */
  texts?: () => readonly (string | undefined)[]
}

/** A record of a list that could not be read (it has no id, say), left out of the list. */
export interface SetAside {
  /** Its position in the answer. */
  index: number
  /** What is wrong with it, as a person can read it. */
  reason: string
}

const setAsideByList = new WeakMap<readonly unknown[], readonly SetAside[]>()

/** The records the reader of a list (a page's `objects`, an unpaged list) left out, and why. */
export function setAsideIn(records: readonly unknown[]): readonly SetAside[] {
  return setAsideByList.get(records) ?? []
}

/**
 * The records of a list, each read leniently (a member of a shape the reader does not expect is
 * kept as given: shape.ts). A record that still cannot be read is set aside (`setAsideIn`) and
 * the others are read: one odd record never costs the rest of its page.
 */
export function recordsOf<T>(item: Parser<T>): Parser<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw new ShapeError('an array', value)
    const items = value as unknown[]
    const read: T[] = new Array<T>(items.length)
    const setAside: SetAside[] = []
    for (let index = 0; index < items.length; index++) {
      try {
        read[index] = readLeniently(item, items[index])
      } catch (error) {
        if (!(error instanceof ShapeError)) throw error
        setAside.push({ index, reason: error.describe() })
      }
    }
    if (setAside.length === 0) {
      // In place, as the other readers: a record read is the object that came (or its value).
      for (let index = 0; index < items.length; index++) items[index] = read[index]
      return items as T[]
    }
    const left = new Set(setAside.map((record) => record.index))
    const kept = read.filter((_, index) => !left.has(index))
    setAsideByList.set(kept, setAside)
    return kept
  }
}

function envelopeObjects(value: Record<string, unknown>): unknown {
  if (!('objects' in value)) throw new ShapeError('an array or an object with "objects"', value)
  return value.objects
}

/**
 * Paged answers are `{count, offset, page_size, objects}`; a server that sends a bare array
 * instead still gives a page, without a count.
 */
export function page<T>(item: Parser<T>): Parser<Page<T>> {
  const objects = recordsOf(item)
  const optionalInteger = (value: unknown, member: string) => {
    if (value === undefined || value === null) return undefined
    try {
      return integer(value)
    } catch (error) {
      if (error instanceof ShapeError) error.path.unshift(member)
      throw error
    }
  }
  return (value) => {
    if (Array.isArray(value))
      return { count: undefined, offset: undefined, objects: objects(value) }
    if (value === null || typeof value !== 'object') {
      throw new ShapeError('an array or an object with "objects"', value)
    }
    const envelope = value as Record<string, unknown>
    const rawObjects = envelopeObjects(envelope)
    let records: T[]
    try {
      records = objects(rawObjects)
    } catch (error) {
      if (error instanceof ShapeError) error.path.unshift('objects')
      throw error
    }
    return {
      ...envelope,
      count: optionalInteger(envelope.count, 'count'),
      offset: optionalInteger(envelope.offset, 'offset'),
      objects: records,
    }
  }
}

/**
 * Unpaged lists are bare arrays; a server that wraps one in `{objects}` is understood too. Records
 * that could not be read are left out (`setAsideIn`).
 */
export function list<T>(item: Parser<T>): Parser<T[]> {
  const items = recordsOf(item)
  return (value) => {
    if (Array.isArray(value) || value === null || typeof value !== 'object') return items(value)
    const rawObjects = envelopeObjects(value as Record<string, unknown>)
    try {
      return items(rawObjects)
    } catch (error) {
      if (error instanceof ShapeError) error.path.unshift('objects')
      throw error
    }
  }
}
