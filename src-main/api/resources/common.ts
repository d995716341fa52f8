import { integer, object, optional, string, type Infer } from '../shape.ts'

/** `{id, name}` references: projects, collections, data sets, source files. */
export const reference = object({ id: integer, name: optional(string) })
export type Reference = Infer<typeof reference>

/** The `owner_id` member records carry when the request set owner_id=true. */
export const person = object({
  id: integer,
  first_name: optional(string),
  last_name: optional(string),
})
export type Person = Infer<typeof person>

/** What deletes answer: `{message: "... has been destroyed"}` (or nothing at all). */
export const message = object({ message: optional(string) })
export type Message = Infer<typeof message>

/** Project references in write bodies: ids, or names the server resolves. */
export type ProjectRef = number | string

/** Formats an export can be written in; which ones apply depends on the operation. */
export type ExportFormat = 'json' | 'csv' | 'sdf' | 'zip' | (string & {})
