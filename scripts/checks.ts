/**
 * The test command's static checks and build, in two lanes at once. Each tool is single-threaded:
 * run one after the other they left a core of the 2-core CI machine idle for over a minute. A
 * lane stops at its first failure; each script's output is printed whole when it ends, so that
 * the two lanes' lines never interleave. Exits non-zero when any script failed.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** npm scripts of package.json, each lane's in order. */
export const lanes: readonly (readonly string[])[] = [
  ['lint:code', 'typecheck:main'],
  ['lint:format', 'typecheck:renderer', 'build'],
]

function runScript(name: string): Promise<boolean> {
  // Under npm, its own entry point; otherwise whatever npm the PATH has.
  const npm = process.env.npm_execpath
  const child = npm
    ? spawn(process.execPath, [npm, 'run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'], shell: true })
  const output: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk))
  const started = Date.now()
  return new Promise((resolve) => {
    const finish = (passed: boolean, why: string) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      process.stdout.write(`\n> ${name}: ${why} in ${seconds} s\n`)
      process.stdout.write(Buffer.concat(output))
      resolve(passed)
    }
    child.once('error', (error) => finish(false, `could not start (${error.message})`))
    child.once('close', (code, signal) =>
      finish(code === 0, code === 0 ? 'passed' : `failed (${signal ?? `exit code ${code}`})`),
    )
  })
}

async function runLane(lane: readonly string[]): Promise<boolean> {
  for (const name of lane) if (!(await runScript(name))) return false
  return true
}

// Run as a script, not when a test reads the lanes.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await Promise.all(lanes.map(runLane))
  process.exitCode = results.every(Boolean) ? 0 : 1
}
