/** The vocabulary of imports (slurps) that main and the window share. */

/** The file types an import takes. */
export const importExtensions = ['.csv', '.sdf', '.xlsx', '.zip'] as const

/** Whether a file of this name can be imported (by its extension, in any case). */
export function isImportable(fileName: string): boolean {
  const dot = fileName.lastIndexOf('.')
  return (
    dot >= 0 && (importExtensions as readonly string[]).includes(fileName.slice(dot).toLowerCase())
  )
}

/** States an import ends in (docs/spec/gaps.md); until then it is followed. */
export const finishedImportStates = ['committed', 'rejected', 'invalid', 'canceled'] as const
