import type { SeedContext } from '../../core/module.ts'
import type { SeededAssays } from './seed-assays.ts'

/**
 * Mapping templates that fill the demo protocols' readouts, so that a client can import
 * dose-response and solubility files by template name.
 */
export function seedImportTemplates(seed: SeedContext, assays: SeededAssays): void {
  const { db, cast, now } = seed
  const vaultId = cast.vaults.main.id
  const definition = (id: number): Record<string, unknown> => {
    const row = db
      .prepare(`SELECT id, name, data_type FROM readout_definitions WHERE id = ?`)
      .get(id) as {
      id: number
      name: string
      data_type: string
    }
    return { id: row.id, type: 'ReadoutDefinition', name: row.name, data_type_name: row.data_type }
  }
  const field = (type: string, name: string): Record<string, unknown> => {
    const row = db
      .prepare(
        `SELECT id, data_type_name FROM field_definitions WHERE vault_id = ? AND type = ? AND name = ?`,
      )
      .get(vaultId, type, name) as { id: number; data_type_name: string } | undefined
    return { id: row?.id ?? null, type, name, data_type_name: row?.data_type_name ?? 'Text' }
  }
  const structure = {
    id: null,
    type: 'InternalFieldDefinition::Structure',
    name: 'Structure',
    data_type_name: 'Text',
  }
  const mappings = (pairs: [string, Record<string, unknown>][]): string =>
    JSON.stringify(
      pairs.map(([header, target], position) => ({
        header: { name: header, position },
        definition: target,
      })),
    )
  const insert = db.prepare(
    `INSERT INTO mapping_templates (vault_id, name, owner_id, header_mappings, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)`,
  )
  const { kinase } = assays
  insert.run(
    vaultId,
    'Kinase IC50 import (CSV)',
    cast.users.writer.id,
    mappings([
      ['SMILES', structure],
      ['Compound', field('InternalFieldDefinition::MoleculeName', 'Molecule Name')],
      ['Concentration (uM)', definition(kinase.concentrationId)],
      ['% Inhibition', definition(kinase.responseId)],
      ['RLU', definition(kinase.signalId)],
      ['Comment', definition(kinase.commentId)],
    ]),
    now - 100 * 86_400,
    now - 100 * 86_400,
  )
  insert.run(
    vaultId,
    'Kinase IC50 import (SDF)',
    cast.users.writer.id,
    mappings([
      ['NAME', field('InternalFieldDefinition::MoleculeName', 'Molecule Name')],
      ['CONC_UM', definition(kinase.concentrationId)],
      ['INHIBITION', definition(kinase.responseId)],
    ]),
    now - 90 * 86_400,
    now - 90 * 86_400,
  )
  const solubility = db
    .prepare(`SELECT id FROM readout_definitions WHERE protocol_id = ? AND name = 'Solubility'`)
    .get(assays.solubilityProtocolId) as { id: number }
  insert.run(
    vaultId,
    'Solubility import (CSV)',
    cast.users.admin.id,
    mappings([
      ['SMILES', structure],
      ['Compound', field('InternalFieldDefinition::MoleculeName', 'Molecule Name')],
      ['Solubility (uM)', definition(solubility.id)],
    ]),
    now - 80 * 86_400,
    now - 80 * 86_400,
  )
}
