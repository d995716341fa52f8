import type { Params } from './params.ts'

export const defaultPageSize = 50
export const maxPageSize = 1000

export interface Page {
  pageSize: number
  offset: number
}

/** Reads page_size (1..1000, default 50) and offset (0-based). */
export function readPage(params: Params): Page {
  return {
    pageSize: params.integer('page_size', { min: 1, max: maxPageSize }) ?? defaultPageSize,
    offset: params.integer('offset', { min: 0 }) ?? 0,
  }
}

/**
 * page_size and offset of an operation that can answer with an export: the spec's Limits say
 * "ignored with async" (the export holds the complete result), so with async they are neither
 * checked nor used.
 */
export function readPageUnlessExporting(
  params: Params,
  exporting = params.boolean('async', false),
): Page {
  if (!exporting) return readPage(params)
  params.ignore('page_size', 'offset')
  return { pageSize: maxPageSize, offset: 0 }
}

export interface Envelope<T> {
  count: number
  offset: number
  page_size: number
  objects: T[]
}

export function envelope<T>(count: number, page: Page, objects: T[]): Envelope<T> {
  return { count, offset: page.offset, page_size: page.pageSize, objects }
}

/** With only_ids every id comes back and page_size is ignored. */
export function idsEnvelope(ids: number[], page: Page): Envelope<number> {
  return {
    count: ids.length,
    offset: page.offset,
    page_size: ids.length,
    objects: ids.slice(page.offset),
  }
}
