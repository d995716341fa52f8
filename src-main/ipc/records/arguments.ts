import { z } from 'zod'
import { recordKindNames } from '../../store/record-kinds.ts'

/** Argument schemas shared by the browse domains (vaults, records, sync). */
export const connectionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'not a connection id')
export const vaultIdSchema = z.number().int().nonnegative()
export const recordIdSchema = z.number().int()
export const recordKindSchema = z.enum(recordKindNames)
