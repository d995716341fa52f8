import { describe, expect, it } from 'vitest'
import { collect, expectApiError, useSim } from './support/sim.ts'

const harness = useSim()

async function pickListField(vaultId: number) {
  const fields = await harness.client().vaults.fields(vaultId)
  const field = fields.molecule?.find((definition) => definition.data_type_name === 'Pick List')
  if (!field) throw new Error('The demo vault has no molecule pick list field.')
  const text = fields.molecule?.find((definition) => definition.data_type_name === 'Text')
  return { field, textField: text! }
}

describe('vaults', () => {
  it('lists the vaults a key reaches', async () => {
    const vaults = await harness.client('reader').vaults.list()
    expect(vaults.map((vault) => vault.id)).toEqual([harness.vaults.main])
    expect(vaults[0]?.name).toEqual(expect.any(String))
  })

  it('answers 401 for a token it does not know', async () => {
    const client = harness.client('admin', { token: 'not-a-real-token-1234' })
    await expectApiError(client.vaults.list(), 'authentication', 401)
  })

  it('gives the field definitions by category', async () => {
    const fields = await harness.client().vaults.fields(harness.vaults.main)
    expect(Object.keys(fields)).toEqual(
      expect.arrayContaining(['internal', 'molecule', 'batch', 'protocol']),
    )
    expect(fields.internal?.[0]).toMatchObject({
      id: expect.any(Number),
      type: expect.stringMatching(/^InternalFieldDefinition::/),
      unique_value: expect.any(Boolean),
    })
  })

  it('answers 401 for the fields of a vault without API access', async () => {
    await expectApiError(
      harness.client().vaults.fields(harness.vaults.closed),
      'authentication',
      401,
    )
  })

  it("reports the key's API time", async () => {
    const client = harness.client()
    await client.vaults.list()
    const usage = await client.vaults.apiUsage(harness.vaults.main, {
      after: new Date(Date.now() - 86_400_000),
      before: new Date(Date.now() + 60_000),
    })
    expect(usage.keyName).toEqual(expect.any(String))
    expect(usage.seconds).toBeGreaterThanOrEqual(0)
    expect(usage.before).toMatch(/Z$/)
  })
})

describe('pick list values', () => {
  it('pages through the values of a pick list field', async () => {
    const { field } = await pickListField(harness.vaults.main)
    const client = harness.client()
    const first = await client.pickListValues.list(harness.vaults.main, field.id, { page_size: 2 })
    expect(first.objects).toHaveLength(2)
    expect(first.count).toBeGreaterThan(2)
    const all = await collect(
      client.pickListValues.listAll(harness.vaults.main, field.id, { pageSize: 3 }),
    )
    expect(all).toHaveLength(first.count!)
    expect(new Set(all.map((value) => value.id)).size).toBe(all.length)
  })

  it('answers 404 for a field that is not a pick list', async () => {
    const { textField } = await pickListField(harness.vaults.main)
    await expectApiError(
      harness.client().pickListValues.list(harness.vaults.main, textField.id),
      'not_found',
      404,
    )
  })

  it('creates, reads, changes and deletes a value', async () => {
    const { field } = await pickListField(harness.vaults.main)
    const values = harness.client().pickListValues
    const vault = harness.vaults.main
    const created = await values.create(vault, field.id, { value: 'Macrocycles' })
    expect(created).toMatchObject({ value: 'Macrocycles', hidden: false, field_id: field.id })
    expect(await values.get(vault, field.id, created.id)).toMatchObject({ value: 'Macrocycles' })
    const changed = await values.update(vault, field.id, created.id, { hidden: true })
    expect(changed).toMatchObject({ value: 'Macrocycles', hidden: true })
    const deleted = await values.delete(vault, field.id, created.id)
    expect(deleted?.message).toContain('destroyed')
    await expectApiError(values.get(vault, field.id, created.id), 'not_found', 404)
    await expectApiError(
      values.update(vault, field.id, created.id, { value: 'x' }),
      'not_found',
      404,
    )
    await expectApiError(values.delete(vault, field.id, created.id), 'not_found', 404)
  })

  it('answers 422 naming the member for a duplicate value', async () => {
    const { field } = await pickListField(harness.vaults.main)
    const values = harness.client().pickListValues
    const [existing] = (await values.list(harness.vaults.main, field.id)).objects
    const error = await expectApiError(
      values.create(harness.vaults.main, field.id, { value: existing!.value! }),
      'validation',
      422,
    )
    expect(error.serverMessage).toContain('value')
    const other = (await values.list(harness.vaults.main, field.id)).objects[1]!
    await expectApiError(
      values.update(harness.vaults.main, field.id, other.id, { value: existing!.value! }),
      'validation',
      422,
    )
  })

  it('keeps changes to vault administrators (401 for others)', async () => {
    const { field } = await pickListField(harness.vaults.main)
    const writer = harness.client('writer')
    await expectApiError(
      writer.pickListValues.create(harness.vaults.main, field.id, { value: 'Nope' }),
      'authentication',
      401,
    )
    expect(writer.needsNewToken).toBe(false)
  })
})

describe('projects', () => {
  it('lists the projects a key can access', async () => {
    const reader = await harness.client('reader').projects.list(harness.vaults.main)
    const admin = await harness.client('admin').projects.list(harness.vaults.main)
    expect(admin.length).toBeGreaterThanOrEqual(reader.length)
    expect(admin.map((project) => project.id)).toContain(harness.projects.kinase)
  })

  it('shows a project with its description and members', async () => {
    const project = await harness
      .client()
      .projects.get(harness.vaults.main, harness.projects.kinase)
    expect(project.description).toEqual(expect.any(String))
    expect(project.members?.[0]).toMatchObject({
      id: expect.any(Number),
      can_manage_project: expect.any(Boolean),
      can_edit_data: expect.any(Boolean),
    })
  })

  it('answers 404 for a project that does not exist or cannot be reached', async () => {
    const projects = harness.client().projects
    await expectApiError(projects.get(harness.vaults.main, 999_999), 'not_found', 404)
    await expectApiError(
      projects.update(harness.vaults.main, 999_999, { name: 'x' }),
      'not_found',
      404,
    )
    await expectApiError(projects.delete(harness.vaults.main, 999_999), 'not_found', 404)
  })

  it('creates, renames, re-members and deletes a project', async () => {
    const projects = harness.client('writer').projects
    const vault = harness.vaults.main
    const writerId = harness.sim.cast.users.writer.id
    const created = await projects.create(vault, { name: 'Degraders', description: 'PROTACs' })
    expect(created).toMatchObject({ id: expect.any(Number), name: 'Degraders' })
    const updated = await projects.update(vault, created.id, {
      name: 'Degraders II',
      members: [{ user_id: writerId, can_manage_project: true, can_edit_data: true }],
    })
    expect(updated.name).toBe('Degraders II')
    expect(updated.members?.map((member) => member.id)).toEqual([writerId])
    await projects.delete(vault, created.id)
    await expectApiError(projects.get(vault, created.id), 'not_found', 404)
  })

  it('answers 422 for a project without a name or with data left in it', async () => {
    const projects = harness.client('admin').projects
    await expectApiError(projects.create(harness.vaults.main, { name: '' }), 'validation', 422)
    await expectApiError(
      projects.update(harness.vaults.main, harness.projects.kinase, { name: '' }),
      'validation',
      422,
    )
    await expectApiError(
      projects.delete(harness.vaults.main, harness.projects.kinase),
      'validation',
      422,
    )
  })
})

describe('users and data sets', () => {
  it('lists the members of a vault, with their projects on request', async () => {
    const users = await harness.client().users.list(harness.vaults.main, { include_projects: true })
    const admin = users.find((user) => user.id === harness.sim.cast.users.admin.id)
    expect(admin).toMatchObject({
      email: expect.stringContaining('@'),
      role_name: expect.any(String),
    })
    expect(admin?.projects?.length).toBeGreaterThan(0)
  })

  it('keeps the member list to administrators', async () => {
    await expectApiError(
      harness.client('reader').users.list(harness.vaults.main),
      'authentication',
      401,
    )
  })

  it('lists the public data sets', async () => {
    const dataSets = await harness.client('reader').dataSets.list(harness.vaults.main)
    expect(dataSets.map((dataSet) => dataSet.id)).toContain(harness.sim.cast.referenceDataSetId)
  })

  it('answers data sets of a vault the key cannot reach with 404, as the spec says', async () => {
    await expectApiError(
      harness.client('reader').dataSets.list(harness.vaults.ai),
      'not_found',
      404,
    )
  })
})
