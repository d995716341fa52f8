/** What a command may touch of its process, so that tests can run commands in-process too. */
export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  readStdin: () => Promise<string>
  env: NodeJS.ProcessEnv
}

export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
  env: process.env,
}
