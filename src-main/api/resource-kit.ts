import type { ApiContext } from './api-context.ts'
import { page, setAsideIn, type Page, type SetAside } from './envelope.ts'
import { recordTexts } from './json-array-stream.ts'
import type { ExportOptions, FinishedExport } from './export-runner.ts'
import { Paginated, type PageWindow, type PagingOptions } from './paginated.ts'
import { readAnswer, readExactly, type Parser } from './shape.ts'
import type { QueryParams } from './params.ts'
import type { CallOptions, RequestSpec } from './transport.ts'

/** Options of calls that read every page of a list. */
export type ListOptions = CallOptions & PagingOptions

function callOptionsOf(options: CallOptions): CallOptions {
  const { signal, priority, timeoutMs } = options
  return {
    ...(signal ? { signal } : {}),
    ...(priority ? { priority } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  }
}

/**
 * The recommended form of a list or query: POST `<path>/query` with the parameters as a JSON
 * body. It changes nothing on the server, so it is retried like a read.
 */
export function queryRequest(operation: string, path: string, body: object): RequestSpec {
  return { operation, method: 'POST', path: `${path}/query`, json: body, retry: 'idempotent' }
}

/**
 * How a list is asked: `query`, POST `<path>/query` (recommended); `get`, the GET at `<path>`
 * with the same parameters in the query string (deprecated but documented, and the only form
 * some servers serve for lists whose POST form the specification does not name).
 */
export type ListForm = 'query' | 'get'

/** Call options of a list that may be asked in either form. */
export type ListCallOptions = CallOptions & { form?: ListForm }

/** A list's request in the form asked (`ListForm`). */
export function listRequest(
  operation: string,
  path: string,
  params: object,
  form: ListForm = 'query',
): RequestSpec {
  if (form === 'query') return queryRequest(operation, path, params)
  return { operation, method: 'GET', path, query: params as QueryParams }
}

/** The call options without the form, which chose the request already. */
export function withoutForm(options: ListCallOptions): CallOptions {
  const { form: _form, ...call } = options
  return call
}

/** One page of a paged list, with its records' texts (Page.texts). */
export async function fetchPage<T>(
  context: ApiContext,
  parse: Parser<T>,
  spec: RequestSpec,
): Promise<Page<T>> {
  const { value, text } = await context.transport.jsonWithText(spec)
  const exact: boolean[] = []
  const read = readAnswer(spec.operation, page(notingExact(parse, exact)), value)
  const setAside = setAsideIn(read.objects)
  return { ...read, texts: () => exactTexts(text, exact, setAside) }
}

/** `parse`, noting for each value read whether it came back exactly as it was (readExactly). */
function notingExact<T>(parse: Parser<T>, exact: boolean[]): Parser<T> {
  return (value) => {
    const { read, exact: unchanged } = readExactly(parse, value)
    exact.push(unchanged)
    return read
  }
}

/**
 * The text of each record of the page (recordTexts) that was read exactly as it came; the texts
 * of records set aside are left out, as the records are.
 */
function exactTexts(
  text: string,
  exact: readonly boolean[],
  setAside: readonly SetAside[],
): (string | undefined)[] {
  let texts = recordTexts(text)
  if (texts && setAside.length > 0) {
    const left = new Set(setAside.map((record) => record.index))
    texts = texts.filter((_, index) => !left.has(index))
  }
  if (!texts || texts.length !== exact.length) return exact.map(() => undefined)
  return texts.map((recordText, index) => (exact[index] ? recordText : undefined))
}

/** Every page of a paged list; `specFor` places the window in the body or the query string. */
export function paginate<T>(
  context: ApiContext,
  parse: Parser<T>,
  operation: string,
  specFor: (window: PageWindow) => Omit<RequestSpec, 'operation'>,
  options: ListOptions,
): Paginated<T> {
  const callOptions = callOptionsOf(options)
  return new Paginated(
    operation,
    (window) => fetchPage(context, parse, { ...callOptions, ...specFor(window), operation }),
    options,
  )
}

/**
 * Runs an export started by `spec` (which must ask for async=true) to completion. The start is
 * retried only when refused with 429: a repeat of one that may have arrived would leave a
 * second export running.
 */
export function runExport<T>(
  context: ApiContext,
  parse: Parser<T>,
  vaultId: number,
  spec: RequestSpec,
  options: ExportOptions,
): Promise<FinishedExport<T>> {
  return context.exports.run(
    spec.operation,
    vaultId,
    (callOptions) => context.transport.json({ retry: 'rejected-only', ...spec, ...callOptions }),
    parse,
    options,
  )
}
