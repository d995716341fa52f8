const secretKeyPattern = /token|secret|password|passphrase|authorization|cookie|api[-_]?key/i
const redacted = '[redacted]'

/**
 * Every secret any Redactor of this process has been given. Error texts are built far from the
 * Redactor that saw the token (an ApiError deep in the client, an IPC answer, a CLI message), and
 * a secret read anywhere in the process is a secret everywhere in it: `redactKnownSecrets` lets
 * those texts be scrubbed without threading a Redactor through every layer.
 */
const processSecrets = new Set<string>()

/**
 * Removes secrets from anything about to be logged or reported: values under secret-looking keys,
 * and every occurrence of a secret registered here (tokens are registered when they are read).
 */
export class Redactor {
  readonly #secrets = new Set<string>()

  add(secret: string): void {
    if (secret.length < 4) return
    this.#secrets.add(secret)
    processSecrets.add(secret)
  }

  redact(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redactText(value)
    if (value === null || typeof value !== 'object') return value
    if (depth > 8) return '[too deep]'
    if (value instanceof Error) {
      return { name: value.name, message: this.redactText(value.message) }
    }
    if (Array.isArray(value)) return value.map((item) => this.redact(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      out[key] = secretKeyPattern.test(key) ? redacted : this.redact(item, depth + 1)
    }
    return out
  }

  redactText(text: string): string {
    return withoutSecrets(text, this.#secrets)
  }
}

/** `text` without any secret that a Redactor of this process has been given. */
export function redactKnownSecrets(text: string): string {
  return withoutSecrets(text, processSecrets)
}

function withoutSecrets(text: string, secrets: ReadonlySet<string>): string {
  let out = text
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(redacted)
  }
  return out
}
