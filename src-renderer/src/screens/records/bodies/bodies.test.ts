import { describe, expect, it } from 'vitest'
import { browseKinds } from '../../../lib/records/browse-kinds.ts'

describe('record page bodies', () => {
  it('exist for every kind with pages but locations (shown as the inventory tree)', () => {
    // The same pattern RecordScreen finds its bodies by.
    const bodies = Object.keys(import.meta.glob('./*.svelte')).map((file) =>
      file.replace(/^\.\/(.*)\.svelte$/, '$1'),
    )
    expect(bodies.sort()).toEqual(
      browseKinds.filter((kind) => kind !== 'inventory_locations').sort(),
    )
  })
})
