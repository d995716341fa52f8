import { z } from 'zod'
import { structureFormats } from '../../../src-common/registration/form.ts'
import { maximumStructureLength } from '../../chem/structure-input.ts'
import { recordKindNames } from '../../store/record-kinds.ts'

/** Argument schemas shared by the browse domains (vaults, records, sync). */
export const connectionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'not a connection id')
export const vaultIdSchema = z.number().int().nonnegative()
export const recordIdSchema = z.number().int()
export const recordKindSchema = z.enum(recordKindNames)

/** A structure as a person typed, pasted or opened it (registration, the novelty check). */
export const drawnStructureSchema = z
  .object({
    format: z.enum(structureFormats),
    text: z.string().max(maximumStructureLength, 'a structure of at most a million characters'),
  })
  .strict()
