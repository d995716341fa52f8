/** The electronic lab notebook: entries and the files attached to records. */
import { day } from '../../format/cells.ts'
import { formatFieldEntries } from '../../format/values.ts'
import { fieldTexts, isObject, toId, toLinkId, toPersonName, toText } from '../../values.ts'
import { column, link, person, text } from '../columns.ts'
import { declareKind } from '../kind-declaration.ts'
import { createdColumn } from './list-columns.ts'

const entryStatuses = ['open', 'submitted', 'finalized', 'discarded'] as const

/** Files an entry's body and lists refer to (`{type: "file", file: id}`, bare ids). */
function referencedFiles(entry: Record<string, unknown>): (number | null)[] {
  return [entry.files, entry.body, entry.append_to_body]
    .flatMap((list) => (Array.isArray(list) ? list : []))
    .map((item) => (isObject(item) ? (toLinkId(item.file) ?? toId(item.id)) : toId(item)))
}

export const elnEntries = declareKind({
  name: 'eln_entries',
  code: 17,
  // The entries query is for administrators and cannot be filtered by time: others' entries
  // arrive with the reference refresh; entries a person creates reach the cache through the
  // outbox, which stores the server's answer.
  pull: { order: 160, mode: 'listed', adminOnly: true },
  singular: 'Notebook entry',
  plural: 'Notebook entries',
  nameOf: (record) => toText(record.name ?? record.title),
  columns: [
    text('status', 'status', { sortable: true, filterable: true }),
    link('author_id', ['author', 'author_id'], { filterable: true, linksTo: 'users' }),
    person('author', 'author', { sortable: true, filterable: true }),
    link('project_id', ['project', 'project_id'], { filterable: true, linksTo: 'projects' }),
  ],
  indexes: ['modified_at', 'status'],
  fieldMaps: ['eln_fields'],
  searchOf: (record) => ({
    name: toText(record.name ?? record.title),
    content: fieldTexts(record.eln_fields),
  }),
  titleOf: (record) => toText(record.name) ?? toText(record.title),
  links: [
    {
      kind: 'files',
      column: 'resource_id',
      from: { own: 'id' },
      where: { resource_class: 'eln_entry' },
    },
    { kind: 'files', column: 'id', from: { json: referencedFiles } },
  ],
  browse: {
    slug: 'entries',
    section: 'notebook',
    icon: 'notebook',
    list: {
      columns: [
        {
          id: 'name',
          label: 'Entry',
          value: (row) => row.columns.name ?? `Notebook entry ${row.id ?? ''}`.trim(),
          width: 220,
          grow: 2.5,
        },
        { id: 'status', label: 'Status', value: (row) => row.columns.status, width: 110 },
        { id: 'author', label: 'Author', value: (row) => row.columns.author, width: 150 },
        createdColumn,
      ],
      projectFilter: 'project_id',
      filters: [
        {
          id: 'status',
          label: 'Status',
          anyLabel: 'All statuses',
          choices: entryStatuses.map((status) => ({
            label: status.charAt(0).toUpperCase() + status.slice(1),
            set: { status },
          })),
        },
      ],
      searchPlaceholder: 'Entry title or field value',
    },
    preview: ({ json }) => [
      { label: 'Status', value: toText(json.status) },
      { label: 'Author', value: toPersonName(json.author) },
      ...formatFieldEntries(json.eln_fields),
      { label: 'Created', value: day(json.created_at) },
    ],
  },
})

export const files = declareKind({
  name: 'files',
  code: 18,
  singular: 'File',
  plural: 'Files',
  columns: [
    text('resource_class', 'resource_class', { filterable: true }),
    link('resource_id', ['resource_id', 'resource'], { filterable: true }),
    column(
      'mime_type',
      'TEXT',
      (record) =>
        isObject(record.mime_type) ? toText(record.mime_type.string) : toText(record.mime_type),
      { sortable: true, filterable: true },
    ),
  ],
  indexes: ['resource_class, resource_id'],
  searchOf: (record) => ({ name: toText(record.name) }),
  // Files are reached from the records they belong to (the vault offers no listing of files).
  browse: { slug: 'files', section: 'notebook', icon: 'file' },
})

export const notebookKinds = [elnEntries, files] as const
