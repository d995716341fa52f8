/**
 * The editors of queued items, one component per operation whose payload a person may correct
 * (its declaration's `editable`): `editors/<operation>.svelte`, the dot of the name a hyphen
 * (`eln-create.svelte` edits `eln.create`). An editable operation without one is corrected in
 * `JsonEditor.svelte`, limited to its editable members.
 */
import type { Component } from 'svelte'
import type { OperationName } from '../../../../src-common/outbox/operations.ts'
import type { JsonObject } from '../../../../src-common/values.ts'
import type { OutboxItemView } from '../../lib/bridge.ts'
import type { Session } from '../../lib/state/session.svelte.ts'

/** The payload an editor's form describes, or why it cannot be saved. */
export type Edited = { ok: true; payload: JsonObject } | { ok: false; message: string }

export interface EditorProps {
  item: OutboxItemView
  session: Session
}

/** What the dialog asks of the editor it shows, when the person saves. */
export interface EditorExports {
  edited(): Edited
}

export interface EditorModule {
  default: Component<EditorProps, EditorExports>
  /** Editors of wide forms (an import's settings, a table of readouts) widen the dialog. */
  size?: 'normal' | 'wide'
}

const editors = import.meta.glob<EditorModule>('./editors/*.svelte', { eager: true })

/** Where the editor of an operation is, if it has one of its own. */
export function editorPath(operation: OperationName): string {
  return `./editors/${operation.replace('.', '-')}.svelte`
}

export function editorOf(operation: OperationName): EditorModule | null {
  return editors[editorPath(operation)] ?? null
}
