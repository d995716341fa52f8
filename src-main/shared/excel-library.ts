/**
 * ExcelJS, loaded when a workbook is first read or written. It is some 600 modules: imported at
 * start-up, it cost every process (the app, each CLI command, each worker that imports the
 * services) a third of a second of CPU whether or not it touched a workbook.
 */
import { createRequire } from 'node:module'
import type ExcelJS from 'exceljs'

let loaded: typeof ExcelJS | null = null

export function excelLibrary(): typeof ExcelJS {
  loaded ??= createRequire(import.meta.url)('exceljs') as typeof ExcelJS
  return loaded
}
