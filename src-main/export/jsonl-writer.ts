/** JSON Lines: one JSON object per record, each on its own line, UTF-8. */
import type { ExportRecord } from './columns.ts'
import { outputChunkChars, type ExportOutput } from './output.ts'
import type { RecordWriter } from './record-writer.ts'

export function jsonLinesWriter(
  output: ExportOutput,
  objectOf: (record: ExportRecord) => unknown,
): RecordWriter {
  return {
    async write(records: readonly ExportRecord[]) {
      let text = ''
      for (const record of records) {
        text += `${JSON.stringify(objectOf(record))}\n`
        if (text.length >= outputChunkChars) {
          await output.write(text)
          text = ''
        }
      }
      await output.write(text)
    },
    async finish() {},
  }
}
