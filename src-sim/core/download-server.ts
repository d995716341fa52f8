import type { IncomingMessage, ServerResponse } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileReply, jsonReply } from './replies.ts'
import { writeReply } from './respond.ts'
import type { SimCore } from './sim-core.ts'
import { countStatus } from './stats.ts'

/**
 * The second origin that export downloads redirect to. It serves a finished export's file to
 * whoever holds its address, with no token, like a storage bucket's signed URL. Faults apply here
 * too (operation `GET /download/...`), so download retries can be tested.
 */
export function createDownloadHandler(sim: SimCore) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    void serve(sim, request, response)
  }
}

async function serve(
  sim: SimCore,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  request.resume()
  const url = new URL(request.url ?? '/', 'http://downloads')
  response.on('finish', () => {
    countStatus(sim.stats, response.statusCode)
    sim.log(`download ${request.method} ${url.pathname} ${response.statusCode}`)
  })
  const noop = (): void => {}
  const match = /^\/exports\/([\w-]+)\/[^/]+$/.exec(url.pathname)
  if (request.method !== 'GET' || !match) {
    writeReply(response, jsonReply({ code: 404, error: 'No download at this address' }, 404), {
      drop: false,
      beforeLastByte: noop,
    })
    return
  }
  const fault = sim.faults.decide(`GET /download${url.pathname}`)
  if (fault.latencyMs > 0) await sleep(fault.latencyMs)
  if (fault.kind === 'hang') {
    sim.stats.injected.hangs++
    return
  }
  if (fault.kind === 'refusal') {
    sim.stats.injected.refusals++
    writeReply(
      response,
      jsonReply({ code: fault.status, error: 'Injected: refused' }, fault.status),
      { drop: false, beforeLastByte: noop },
    )
    return
  }
  if (fault.kind === 'server-error') {
    sim.stats.injected.serverErrors++
    writeReply(
      response,
      jsonReply({ code: fault.status, error: 'Injected server error' }, fault.status),
      { drop: false, beforeLastByte: noop },
    )
    return
  }
  const file = sim.exports.fileForDownload(match[1]!)
  if (!file) {
    writeReply(
      response,
      jsonReply({ code: 404, error: 'This download does not exist or has expired' }, 404),
      { drop: false, beforeLastByte: noop },
    )
    return
  }
  sim.stats.downloads++
  if (fault.kind === 'drop') sim.stats.injected.drops++
  writeReply(response, fileReply(file.path, file.contentType, file.fileName), {
    drop: fault.kind === 'drop',
    beforeLastByte: noop,
  })
}
