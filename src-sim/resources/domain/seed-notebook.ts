import type { SeedContext } from '../../core/module.ts'
import type { ElnStatus } from '../../pure/eln-status.ts'
import type { BodyBlock } from './eln-store.ts'
import { writeContents } from './file-contents.ts'
import type { SeededAssays } from './seed-assays.ts'

/**
 * Demo notebook entries in every status, with the status history that led there, and files:
 * an SOP on the kinase protocol, raw data on a run, a spreadsheet attached to an open entry.
 */
export function seedNotebook(seed: SeedContext, assays: SeededAssays): void {
  const { db, cast, now } = seed
  const vaultId = cast.vaults.main.id
  const writer = cast.users.writer.id
  const admin = cast.users.admin.id
  const insertFile = db.prepare(
    `INSERT INTO uploaded_files (vault_id, resource_class, resource_id, name, mime_type, size, owner_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const file = (
    resourceClass: string,
    resourceId: number,
    name: string,
    mimeType: string,
    contents: string,
    at: number,
  ): number => {
    const bytes = Buffer.from(contents)
    const id = Number(
      insertFile.run(vaultId, resourceClass, resourceId, name, mimeType, bytes.length, writer, at)
        .lastInsertRowid,
    )
    writeContents(seed.filesDirectory, id, bytes)
    return id
  }
  file(
    'protocol',
    assays.kinase.protocolId,
    'ADP-Glo SOP v3.txt',
    'text/plain',
    'ADP-Glo kinase assay\n1. Dispense 5 uL kinase + substrate.\n2. Add compound (50 nL).\n3. Start with ATP; 60 min at 25 C.\n4. Add ADP-Glo reagent, read luminescence.\n',
    now - 290 * 86_400,
  )
  file(
    'run',
    assays.runIds[0]!,
    'KIN-P001 raw.csv',
    'text/csv',
    'well,rlu\nA01,198422\nA02,8123\n',
    now - 119 * 86_400,
  )

  const insertEntry = db.prepare(
    `INSERT INTO eln_entries (vault_id, title, project_id, author_id, status, fields, body, witness_id, created_at, modified_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertChange = db.prepare(
    `INSERT INTO eln_status_changes (entry_id, action, from_status, to_status, user_id, witness_id, reason, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  type Step = [
    action: string,
    from: ElnStatus,
    to: ElnStatus,
    witness: number | null,
    reason: string | null,
  ]
  const entry = (
    title: string,
    projectId: number,
    status: ElnStatus,
    daysAgo: number,
    body: BodyBlock[],
    steps: Step[],
  ): number => {
    const created = now - daysAgo * 86_400
    const witness = steps.findLast((step) => step[3] !== null)?.[3] ?? null
    const id = Number(
      insertEntry.run(
        vaultId,
        title,
        projectId,
        writer,
        status,
        JSON.stringify({ Notebook: 'RF-07', Page: String(100 + daysAgo) }),
        JSON.stringify(body),
        status === 'open' ? null : witness,
        created,
        created + steps.length * 3600,
      ).lastInsertRowid,
    )
    steps.forEach(([action, from, to, stepWitness, reason], index) => {
      insertChange.run(
        id,
        action,
        from,
        to,
        action === 'approve' ? admin : writer,
        stepWitness,
        reason,
        created + (index + 1) * 3600,
      )
    })
    return id
  }
  const kinase = cast.projects.kinase.id
  const gpcr = cast.projects.gpcr.id
  const open = entry(
    'EGFR inhibitor resynthesis, batch 3',
    kinase,
    'open',
    3,
    [{ type: 'text', text: 'Scaled up the amide coupling to 2 g; HATU, DIPEA, DMF.' }],
    [],
  )
  const spreadsheet = file(
    'eln_entry',
    open,
    'yields.csv',
    'text/csv',
    'step,yield\ncoupling,78%\ndeprotection,91%\n',
    now - 2 * 86_400,
  )
  db.prepare(`UPDATE eln_entries SET body = ? WHERE id = ?`).run(
    JSON.stringify([
      { type: 'text', text: 'Scaled up the amide coupling to 2 g; HATU, DIPEA, DMF.' },
      { type: 'file', file: spreadsheet, name: 'yields.csv' },
    ]),
    open,
  )
  entry(
    'D2R binding assay optimisation',
    gpcr,
    'open',
    8,
    [{ type: 'link', url: 'https://doi.org/10.1016/j.ab.2009.02.033', label: 'Assay guidance' }],
    [
      ['submit', 'open', 'submitted', admin, null],
      ['reject', 'submitted', 'open', null, 'Add the membrane batch numbers'],
    ],
  )
  entry(
    'ADP-Glo validation plate',
    kinase,
    'submitted',
    15,
    [{ type: 'text', text: "Z' 0.81 over three plates." }],
    [['submit', 'open', 'submitted', admin, null]],
  )
  entry(
    'Kinase selectivity summary Q2',
    kinase,
    'finalized',
    40,
    [{ type: 'text', text: 'Twelve compounds profiled; see protocol data.' }],
    [
      ['submit', 'open', 'submitted', admin, null],
      ['approve', 'submitted', 'finalized', null, null],
    ],
  )
  entry(
    'Solubility method transfer',
    gpcr,
    'finalized',
    60,
    [{ type: 'text', text: 'Nephelometry method transferred from CRO.' }],
    [
      ['submit', 'open', 'submitted', admin, null],
      ['approve', 'submitted', 'finalized', null, null],
      ['reopen', 'finalized', 'open', null, 'Correct the buffer lot'],
      ['submit', 'open', 'submitted', admin, null],
      ['approve', 'submitted', 'finalized', null, null],
    ],
  )
  entry(
    'Failed Suzuki coupling (duplicate entry)',
    kinase,
    'discarded',
    70,
    [{ type: 'text', text: 'Duplicate of the entry of the same day.' }],
    [['discard', 'open', 'discarded', null, null]],
  )
}
