/** List columns several kinds show alike. */
import { dayCell, linkNames } from '../../format/cells.ts'
import type { ListColumn } from '../kind-declaration.ts'

export const createdColumn: ListColumn = {
  id: 'created_at',
  label: 'Created',
  value: (row) => row.columns.created_at,
  format: dayCell,
  width: 116,
}

export const ownerColumn: ListColumn = {
  id: 'owner',
  label: 'Owner',
  value: (row) => row.columns.owner,
  width: 130,
}

export const projectsColumn: ListColumn = {
  id: 'projects',
  label: 'Projects',
  value: (row) => linkNames(row.json.projects),
  width: 150,
}
