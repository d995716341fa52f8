import { describe, expect, it } from 'vitest'
import { capText, htmlPageTitle, maxErrorTextLength, safeErrorText } from './error-text.ts'
import { Redactor } from './redactor.ts'

describe('safeErrorText', () => {
  it('takes out every secret a Redactor of the process has seen, and those it is given', () => {
    new Redactor().add('tok-registered-1234')
    expect(safeErrorText('a tok-registered-1234 b tok-given-5678 c', ['tok-given-5678'])).toBe(
      'a [redacted] b [redacted] c',
    )
  })

  it('leaves newlines and tabs, and replaces what a terminal would act on', () => {
    expect(safeErrorText('line one\n\tline two\r\u001b[2K\u0007\u009b')).toBe(
      'line one\n\tline two\ufffd\ufffd[2K\ufffd\ufffd',
    )
  })

  it('caps a long text with an ellipsis, and changes nothing more when applied again', () => {
    const once = safeErrorText('y'.repeat(maxErrorTextLength * 3))
    expect(once).toHaveLength(maxErrorTextLength)
    expect(once.endsWith('y…')).toBe(true)
    expect(safeErrorText(once)).toBe(once)
  })
})

describe('capText', () => {
  it('keeps a text that fits', () => {
    expect(capText('short', 5)).toBe('short')
  })

  it('never cuts a character in half', () => {
    const cut = capText(`abc${'🧪'.repeat(5)}`, 6)
    expect(cut).toBe('abc🧪…')
    expect(cut.length).toBeLessThanOrEqual(6)
    expect(capText('ab🧪cd', 4)).toBe('ab…')
  })
})

describe('htmlPageTitle', () => {
  it.each([
    ['<!DOCTYPE html><html><head><title>502 Bad Gateway</title>', '502 Bad Gateway'],
    ['\ufeff  <!-- proxy -->\n<html><title lang="en">\n  Sign in\n</title>', 'Sign in'],
    [
      '<HTML><HEAD><TITLE>A &amp; B &lt;C&gt; &#8212; &#x2713; &bogus;</TITLE>',
      'A & B <C> — ✓ &bogus;',
    ],
    ['<html><title><b>Bold</b> title</title>', 'Bold title'],
    ['<html><body>no title here</body></html>', ''],
    ['<body><h1>Oops</h1></body>', ''],
  ])('reads %j as %j', (page, title) => {
    expect(htmlPageTitle(page)).toBe(title)
  })

  it('goes by the declared type when the page does not start as one', () => {
    expect(htmlPageTitle('  <p>x</p><title>Maintenance</title>', 'text/html; charset=utf-8')).toBe(
      'Maintenance',
    )
    expect(htmlPageTitle('<p>x</p><title>Maintenance</title>', 'text/plain')).toBeNull()
  })

  it.each(['{"error": "<html> in a message"}', 'plain text <title>x</title>', ''])(
    'answers null for %j, which is not a page',
    (text) => {
      expect(htmlPageTitle(text)).toBeNull()
    },
  )
})
