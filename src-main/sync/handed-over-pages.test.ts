import { describe, expect, it } from 'vitest'
import { HandedOverPages, type HandedPage } from './handed-over-pages.ts'

/** A commit the test settles by hand. */
function pendingCommit() {
  let resolve!: () => void
  let reject!: (error: Error) => void
  const promise = new Promise<void>((yes, no) => {
    resolve = yes
    reject = no
  })
  return { promise, resolve, reject }
}

/** A page already sent to the store's writer, committed as `committed` says. */
function sentPage(committed: Promise<void>): HandedPage {
  return { sent: Promise.resolve(), committed }
}

/** Whether a promise has settled once pending callbacks have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  await new Promise((resolve) => setImmediate(resolve))
  return settled
}

describe('pages handed over to the store', () => {
  it('lets the pass read on while up to pagesAhead pages wait, and no further', async () => {
    const pages = new HandedOverPages()
    const commits = Array.from({ length: HandedOverPages.pagesAhead + 1 }, pendingCommit)
    for (const commit of commits.slice(0, -1)) {
      expect(await hasSettled(pages.add(sentPage(commit.promise)))).toBe(true)
    }
    const oneTooMany = pages.add(sentPage(commits.at(-1)!.promise))
    expect(await hasSettled(oneTooMany)).toBe(false)
    commits[0]!.resolve()
    expect(await hasSettled(oneTooMany)).toBe(true)
  })

  it('lets the pass read on only once a page has crossed to the store', async () => {
    const pages = new HandedOverPages()
    const sending = pendingCommit()
    const committing = pendingCommit()
    const added = pages.add({ sent: sending.promise, committed: committing.promise })
    expect(await hasSettled(added)).toBe(false)
    sending.resolve()
    expect(await hasSettled(added)).toBe(true)
    committing.resolve()
    // A page that could not be sent fails as a commit: the pass meets that where it waits.
    const unsent = pendingCommit()
    const refused = pendingCommit()
    const next = pages.add({ sent: unsent.promise, committed: refused.promise })
    unsent.reject(new Error('cannot cross'))
    refused.reject(new Error('cannot cross'))
    await expect(next).resolves.toBeUndefined()
    await expect(pages.committed()).rejects.toThrow('cannot cross')
  })

  it('throws the first failure, not the refusals of the pages after it', async () => {
    const pages = new HandedOverPages()
    const first = pendingCommit()
    const second = pendingCommit()
    await pages.add(sentPage(first.promise))
    await pages.add(sentPage(second.promise))
    // The store refuses a page that follows one that failed; that refusal may come first.
    second.reject(new Error('Not written: a write it follows was not stored.'))
    first.reject(new Error('disk full'))
    await expect(pages.committed()).rejects.toThrow('disk full')
  })

  it('meets a failure when handing over more pages than may wait', async () => {
    const pages = new HandedOverPages()
    const failed = pendingCommit()
    await pages.add(sentPage(failed.promise))
    for (let page = 1; page < HandedOverPages.pagesAhead; page++) {
      await pages.add(sentPage(Promise.resolve()))
    }
    failed.reject(new Error('disk full'))
    await expect(pages.add(sentPage(Promise.resolve()))).rejects.toThrow('disk full')
  })

  it('settles, without throwing, once the last page handed over has', async () => {
    const pages = new HandedOverPages()
    const last = pendingCommit()
    await pages.add(sentPage(Promise.reject(new Error('refused'))))
    await pages.add(sentPage(last.promise))
    const settled = pages.settled()
    expect(await hasSettled(settled)).toBe(false)
    last.reject(new Error('refused as well'))
    await expect(settled).resolves.toBeUndefined()
  })

  it('answers at once when every page has committed', async () => {
    const pages = new HandedOverPages()
    await pages.add(sentPage(Promise.resolve()))
    await pages.add(sentPage(Promise.resolve()))
    await expect(pages.committed()).resolves.toBeUndefined()
  })
})
