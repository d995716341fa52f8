import { describe, expect, it } from 'vitest'
import { PageBook } from './page-book.ts'

describe('PageBook', () => {
  it('names the pages a range of rows needs', () => {
    const book = new PageBook(100)
    expect(book.pagesOf({ start: 0, end: 40 })).toEqual([0])
    expect(book.pagesOf({ start: 180, end: 230 })).toEqual([1, 2])
    expect(book.pagesOf({ start: 0, end: 0 })).toEqual([0])
    expect(book.pagesOf({ start: 200, end: 200 })).toEqual([2])
  })

  it('asks for each page once, and again after a failure or a new question', () => {
    const book = new PageBook(100)
    book.startReading(0)
    expect(book.needs(0)).toBe(false)
    book.finishReading(0, true)
    expect(book.needs(0)).toBe(false)
    book.startReading(1)
    book.finishReading(1, false)
    expect(book.needs(1)).toBe(true)
    book.startReading(2)
    book.forgetRead()
    expect([book.needs(0), book.needs(2)]).toEqual([true, false])
    book.clear()
    expect(book.needs(2)).toBe(true)
  })
})
