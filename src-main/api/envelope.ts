import { arrayOf, integer, ShapeError, type Parser } from './shape.ts'

/** One page of a paged list. `count` is the total of matches; a bare array answer has none. */
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

function envelopeObjects(value: Record<string, unknown>): unknown {
  if (!('objects' in value)) throw new ShapeError('an array or an object with "objects"', value)
  return value.objects
}

/**
 * Paged answers are `{count, offset, page_size, objects}`; a server that sends a bare array
 * instead still gives a page, without a count.
 */
export function page<T>(item: Parser<T>): Parser<Page<T>> {
  const objects = arrayOf(item)
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

/** Unpaged lists are bare arrays; a server that wraps one in `{objects}` is understood too. */
export function list<T>(item: Parser<T>): Parser<T[]> {
  const items = arrayOf(item)
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
