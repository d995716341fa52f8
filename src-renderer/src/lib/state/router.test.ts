import { describe, expect, it } from 'vitest'
import { parseRoute, sectionHref } from './router.svelte.ts'

describe('parseRoute', () => {
  it('opens molecules when there is no hash', () => {
    expect(parseRoute('')).toEqual({ kind: 'section', section: 'molecules' })
    expect(parseRoute('#/')).toEqual({ kind: 'section', section: 'molecules' })
  })

  it('reads sections and the component gallery', () => {
    expect(parseRoute('#/outbox')).toEqual({ kind: 'section', section: 'outbox' })
    expect(parseRoute(sectionHref('plates'))).toEqual({ kind: 'section', section: 'plates' })
    expect(parseRoute('#/gallery')).toEqual({ kind: 'gallery' })
  })

  it('keeps an unknown address so the page can say what was not found', () => {
    expect(parseRoute('#/reactions')).toEqual({ kind: 'unknown', hash: '#/reactions' })
  })
})
