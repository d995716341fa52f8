import { describe, expect, it } from 'vitest'
import { attachedKind, filePreview } from './file-preview.ts'

const base64 = (text: string) =>
  btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(''))

describe('filePreview', () => {
  it('decodes text files as UTF-8', () => {
    expect(filePreview('text/plain', base64('ADP-Glo SOP: 25 °C'))).toEqual({
      kind: 'text',
      text: 'ADP-Glo SOP: 25 °C',
      truncated: false,
    })
    expect(filePreview('text/csv; charset=utf-8', base64('a,b'))).toMatchObject({ text: 'a,b' })
  })

  it('shows images as data addresses', () => {
    expect(filePreview('image/png', 'iVBORw0KGgo=')).toEqual({
      kind: 'image',
      url: 'data:image/png;base64,iVBORw0KGgo=',
    })
  })

  it('previews nothing it cannot read', () => {
    expect(filePreview('application/pdf', base64('%PDF'))).toEqual({ kind: 'none' })
    expect(filePreview('text/plain', undefined)).toEqual({ kind: 'none' })
    expect(filePreview('text/plain', '%%% not base64')).toEqual({ kind: 'none' })
    expect(filePreview(null, base64('x'))).toEqual({ kind: 'none' })
  })

  it('says when a long text was cut', () => {
    const preview = filePreview('text/plain', base64('x'.repeat(300_000)))
    expect(preview).toMatchObject({ kind: 'text', truncated: true })
    expect(preview.kind === 'text' && preview.text.length).toBe(196_608)
  })
})

describe('attachedKind', () => {
  it('maps the vault resource classes to pages', () => {
    expect(attachedKind('eln_entry')).toBe('eln_entries')
    expect(attachedKind('run')).toBe('runs')
    expect(attachedKind('readout row')).toBeNull()
    expect(attachedKind(null)).toBeNull()
  })
})
