import type { IncomingMessage } from 'node:http'
import { HttpError, badRequest } from './http-error.ts'

/**
 * Reads a JSON request body: undefined when empty, 400 when it is not JSON, 413 past the limit.
 */
export async function readJsonBody(request: IncomingMessage, limitBytes: number): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    const buffer = chunk as Buffer
    size += buffer.length
    if (size > limitBytes) {
      throw new HttpError(413, `The request body is larger than the ${limitBytes}-byte limit`)
    }
    chunks.push(buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}`)
  }
}
