import { afterEach, describe, expect, it } from 'vitest'
import { loopbackServer, type LoopbackServer } from '../../test/api/support/loopback-server.ts'
import { VaultClient } from './client.ts'
import { LimiterRegistry } from './limiter-registry.ts'

const recordTexts = [
  '{"id": 1, "name": "aspirin", "created_at": "2024-05-01T08:00:00Z", "extra": [1, {"a": "}]"}]}',
  '{"id":"2","name":"caffeine"}',
  '{"id":3,"created_at":"2024-05-01T10:00:00+02:00"}',
  '{"id":4,"name":"ünïcødé ✓ \\"quoted\\""}',
]

const servers: LoopbackServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** A service whose molecule query answers `body`, as written. */
async function clientAnswering(body: string): Promise<VaultClient> {
  const api = await loopbackServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' })
    response.end(body)
  })
  servers.push(api)
  return new VaultClient({
    baseUrl: api.url,
    token: 'page-texts-token',
    limiters: new LimiterRegistry(),
  })
}

describe('a page of records', () => {
  it('gives each record the text it came as, unless reading it changed the record', async () => {
    const client = await clientAnswering(
      `{"count": 4, "objects": [\n  ${recordTexts.join(',\n  ')}\n], "offset": 0, "page_size": 50}`,
    )
    const page = await client.molecules.query(1, {})
    expect(page.count).toBe(4)
    const texts = page.texts!()
    expect(texts).toEqual([recordTexts[0], undefined, undefined, recordTexts[3]])
    page.objects.forEach((record, index) => {
      if (texts[index] !== undefined) expect(JSON.parse(texts[index])).toEqual(record)
    })
    expect(page.objects[1]).toMatchObject({ id: 2, name: 'caffeine' })
  })

  it('finds the texts in an answer that is a bare array, and in an empty page', async () => {
    const bare = await (
      await clientAnswering(`[${recordTexts[0]},${recordTexts[3]}]`)
    ).molecules.query(1, {})
    expect(bare.texts!()).toEqual([recordTexts[0], recordTexts[3]])
    const empty = await (
      await clientAnswering('{"count": 0, "objects": []}')
    ).molecules.query(1, {})
    expect(empty.texts!()).toEqual([])
  })
})
