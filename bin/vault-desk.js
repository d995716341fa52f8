#!/usr/bin/env node
// The CLI is TypeScript run by Node's own type stripping, which needs Node 22.18 or newer;
// `npx vault-desk` finds the Node 22 that the project pins in node_modules/.bin.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `vault-desk needs Node 22.18 or newer (this is ${process.versions.node}); run it with npx vault-desk.\n`,
  )
  process.exit(1)
}
const { runCli } = await import('../src-main/cli/main.ts')
const { processIo } = await import('../src-main/cli/cli-io.ts')
process.exitCode = await runCli(process.argv.slice(2), processIo)
