import net from 'node:net'

/**
 * A TCP relay on 127.0.0.1 in front of a server, that can be switched off: off, its port refuses
 * connections (as a machine with no network, or a server that is down), on, it relays again on
 * the same port. The relay is a true network boundary; nothing of the client is replaced.
 */
export interface NetworkSwitch {
  readonly port: number
  off(): Promise<void>
  on(): Promise<void>
  close(): Promise<void>
}

export async function networkSwitch(targetPort: number): Promise<NetworkSwitch> {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    const upstream = net.connect(targetPort, '127.0.0.1')
    for (const end of [socket, upstream]) {
      sockets.add(end)
      end.on('close', () => sockets.delete(end))
      end.on('error', () => {
        socket.destroy()
        upstream.destroy()
      })
    }
    socket.pipe(upstream).pipe(socket)
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve((server.address() as net.AddressInfo).port)
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  const port = await listen(0)
  return {
    port,
    off: stop,
    on: async () => {
      if (!server.listening) await listen(port)
    },
    close: stop,
  }
}
