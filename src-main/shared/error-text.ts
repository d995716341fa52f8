import { redactKnownSecrets } from './redactor.ts'

/**
 * The longest error text that leaves the main process (an IPC answer, a CLI message, an outbox
 * item's last error): a few paragraphs, enough for any message a person reads, far below the
 * page a misconfigured proxy sends. A longer text is cut and ends in an ellipsis.
 */
export const maxErrorTextLength = 2_000

const ellipsis = '…'

/**
 * Characters a terminal or a text field would act on rather than show (escape sequences, carriage
 * returns, bells): server text must not move a terminal's cursor or recolour what follows.
 * Newlines and tabs stay.
 */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * An error text fit to show a person: every secret a Redactor of this process has seen (and
 * `secrets`) removed, control characters replaced, and at most `maxErrorTextLength` characters.
 * Applying it twice changes nothing more.
 */
export function safeErrorText(text: string, secrets: readonly string[] = []): string {
  let out = redactKnownSecrets(text)
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join('[redacted]')
  }
  return capText(out.replace(controlCharacters, '\ufffd'), maxErrorTextLength)
}

/** `text` cut to at most `max` characters, the last of them an ellipsis when it was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max - ellipsis.length
  // Never split a surrogate pair: half a character would show as a replacement box.
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return text.slice(0, end) + ellipsis
}

const htmlStart = /^(?:\ufeff)?\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b/i
const titlePattern = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i

/**
 * What an HTML page says in its `<title>`, for an error body sent as a page (proxies, gateways and
 * login portals answer so): null when `text` is not an HTML page, '' when the page has no title.
 * The page itself (often hundreds of kilobytes of markup) never becomes a message.
 */
export function htmlPageTitle(text: string, contentType?: string | null): string | null {
  const declaredHtml = /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '')
  if (!declaredHtml && !htmlStart.test(text)) return null
  const title = titlePattern.exec(text)?.[1]
  if (title === undefined) return ''
  return decodeEntities(title.replace(/<[^>]*>/g, ''))
    .replace(/\s+/g, ' ')
    .trim()
}

const namedEntities: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return namedEntities[name.toLowerCase()] ?? entity
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity
  })
}
