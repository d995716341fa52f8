import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { AppUnderTest } from './app-under-test.ts'

export interface SuiteWindow {
  readonly app: AppUnderTest
  /** The one page every test of the suite works in. */
  readonly page: Page
}

/**
 * The app of a suite whose subject is what the person finds on a data folder left in a given
 * state: registers the suite's hooks, which start the app on a folder `prepare` fills, run
 * `beforeOpen` (a connection saved), open one window, check after each test that the page
 * reported no problems, and stop the app after the last. Call it inside the `describe`; hooks the
 * suite registers after it run before the app stops (Vitest runs after-hooks in reverse order).
 */
export function suiteWindow(options: {
  prepare: (dataDir: string) => Promise<void> | void
  beforeOpen?: (app: AppUnderTest) => void
}): SuiteWindow {
  let app: AppUnderTest | undefined
  let page: Page | undefined
  let problems: () => Promise<string[]> = async () => []

  beforeAll(async () => {
    app = await AppUnderTest.start({}, { prepare: options.prepare })
    options.beforeOpen?.(app)
    const session = await app.open()
    page = session.page
    problems = session.problems
  }, 120_000)

  afterEach(async () => {
    expect(await problems()).toEqual([])
  })

  afterAll(async () => {
    await app?.stop()
  })

  return {
    get app() {
      if (!app) throw new Error('The app is started in beforeAll: read it inside a test.')
      return app
    },
    get page() {
      if (!page) throw new Error('The window is opened in beforeAll: read it inside a test.')
      return page
    },
  }
}
